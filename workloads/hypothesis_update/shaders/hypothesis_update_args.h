/* Arguments of the hypothesis-update kernels (the .comp files beside it), shared by C++
 * (vulkan_program.cpp) and GLSL (hypothesis_update.glsl reads them).
 *
 * Every kernel takes one argument: `layout_block`, the Heap word where the layout block starts
 * (L_* in hypothesis_update.glsl: the word offsets of every Heap table and Globals array, and a few
 * sizes). The kernels reach everything through it, so each stage binds it as all of Heap (read)
 * pushing the layout block's word, and declares all of Globals read and written itself: a full
 * barrier between stages. When the per-row arrays are far segments (the layout words say so),
 * the stages whose kernels reach them (all but feature_evidence and select) declare those
 * segments read and written too, which runs the kernels' far variants. The kernels, in the order the program runs them:
 *   slopes            each live row's evidence slope and whether the slope tracker keeps it
 *   median            the "median" threshold: each space's median evidence (radix select)
 *   threshold         per LM: evidence max/min/sum, the update thresholds, the burst trigger
 *   feature_evidence  node feature evidence fe[c][n] of every space, per input channel
 *   compact           deletion: keeps the rows the slope tracker kept, lists the removed ones
 *   select            which nodes the step's new hypotheses are built from (numpy argsort)
 *   location_evidence displacement, K nearest nodes, each channel's location evidence
 *   floor             per space: rows tested, per-channel floor, the prediction error
 *   apply             E <- past E + present total for the retained rows
 *   new_block         the step's new hypotheses, appended after the retained rows
 *   tracker           the slope tracker's history shift, age and slope after the update
 *   vote_send         (votes) per LM: evidence scaled over its graphs, the votes above threshold
 *   vote_receive      (votes) per row: the 3 nearest moved votes, the largest added to E
 *   argmax            per LM: new live counts, the most likely hypothesis, burst countdown */
#ifndef HYPOTHESIS_UPDATE_ARGS_H
#define HYPOTHESIS_UPDATE_ARGS_H
#include "weft_args.h"

#define HYPOTHESIS_UPDATE_STEP_ARGS(X) X(WEFT_IN(Heap), layout_block)

#ifdef __cplusplus
namespace weft::hypothesis_update {
WEFT_KERNEL_ARGS(StepArgs, HYPOTHESIS_UPDATE_STEP_ARGS)
}  // namespace weft::hypothesis_update
#endif
#endif /* HYPOTHESIS_UPDATE_ARGS_H */
