/* Arguments of the game-search kernels, shared by C++ and GLSL (bindings_layout/weft_args.h).
 * `counts` and `capacity` are the Control words of every level's node count and capacity (level
 * k at word k); `ticks` the Control word the kernels add their compute ticks to. */
#ifndef GAME_ARGS_H
#define GAME_ARGS_H
#include "weft_args.h"

/* expand: the non-terminal nodes of level d-1 (`parents`, their child range written back) get
 * their children in level d, one atomic reservation per parent; overflow is flagged. */
#define GAME_EXPAND_ARGS(X)                                                                                  \
  X(WEFT_U32, width) X(WEFT_U32, height) X(WEFT_INOUT(Globals), parents) X(WEFT_OUT(Globals), children)        \
  X(WEFT_IN(Control), counts) X(WEFT_IN(Control), capacity) X(WEFT_OUT(Control), overflow) X(WEFT_U32, level) \
  X(WEFT_OUT(Control), ticks)
/* size: the indirect dispatches of level d's evaluation and of the next iteration's levels. */
#define GAME_SIZE_ARGS(X) \
  X(WEFT_IN(Control), counts) X(WEFT_IN(Control), capacity) X(WEFT_U32, depth) X(WEFT_OUT(Control), evaluate_slot) X(WEFT_OUT(Control), next_slots)
/* evaluate: terminal detection and static score of every node of level d. */
#define GAME_EVALUATE_ARGS(X)                                                                                   \
  X(WEFT_U32, width) X(WEFT_U32, height) X(WEFT_INOUT(Globals), nodes) X(WEFT_IN(Control), counts)               \
  X(WEFT_IN(Control), capacity) X(WEFT_U32, depth) X(WEFT_IN(Heap), windows) X(WEFT_U32, window_count)           \
  X(WEFT_IN(Heap), weights) X(WEFT_OUT(Control), ticks)
/* backup: negamax of level k from its children in level k+1. */
#define GAME_BACKUP_ARGS(X)                                                                          \
  X(WEFT_INOUT(Globals), nodes) X(WEFT_IN(Globals), children) X(WEFT_IN(Control), counts)             \
  X(WEFT_IN(Control), capacity) X(WEFT_U32, level) X(WEFT_OUT(Control), ticks)
/* select: per root, the move scores, best move, confidence, degenerate and novelty flags. */
#define GAME_SELECT_ARGS(X)                                                                              \
  X(WEFT_U32, width) X(WEFT_IN(Globals), roots) X(WEFT_IN(Globals), level1) X(WEFT_IN(Control), counts)    \
  X(WEFT_IN(Control), capacity) X(WEFT_INOUT(Globals), results) X(WEFT_U32, depth) X(WEFT_OUT(Control), ticks)
/* message: depth d's message and Metrics (node counts, overflow, ticks). */
#define GAME_MESSAGE_ARGS(X) \
  X(WEFT_IN(Control), counts) X(WEFT_IN(Control), overflow) X(WEFT_U32, depth) X(WEFT_IN(Globals), results) X(WEFT_IN(Control), ticks)

#ifdef __cplusplus
namespace weft::game {
WEFT_KERNEL_ARGS(ExpandArgs, GAME_EXPAND_ARGS)
WEFT_KERNEL_ARGS(SizeArgs, GAME_SIZE_ARGS)
WEFT_KERNEL_ARGS(EvaluateArgs, GAME_EVALUATE_ARGS)
WEFT_KERNEL_ARGS(BackupArgs, GAME_BACKUP_ARGS)
WEFT_KERNEL_ARGS(SelectArgs, GAME_SELECT_ARGS)
WEFT_KERNEL_ARGS(MessageArgs, GAME_MESSAGE_ARGS)
}  // namespace weft::game
#endif
#endif /* GAME_ARGS_H */
