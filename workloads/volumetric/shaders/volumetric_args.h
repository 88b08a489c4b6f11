/* Arguments of the volumetric kernels, shared by C++ and GLSL (bindings_layout/weft_args.h).
 *
 * Kernels built in an inference and a training variant (dense, embedding, kmeans, norm,
 * recurrent_cell) read their parameters from Heap (packed, immutable) or from Globals (the f32
 * masters the optimiser writes, PARAMS_IN_GLOBALS): one list per operation, instantiated for
 * both bindings (VOLUMETRIC_<OP>_ARGS and VOLUMETRIC_<OP>_TRAIN_ARGS).
 *
 * The backward kernels run in phases (one stage each, `phase` says which); an argument a phase
 * does not touch is bound weft::absent. An argument one phase writes and a later phase reads
 * (dense_backward's dz, attention_backward's probs and dscores) is a u32 word index: each stage
 * declares that buffer's range itself, as read or written by its phase. */
#ifndef VOLUMETRIC_ARGS_H
#define VOLUMETRIC_ARGS_H
#include "weft_args.h"

/* dense (dense.glsl; `P` the parameters' binding): y = act(bias + W x) for `rows` outputs at
 * `positions` positions from the packed matrix (weights, scales; bias absent: none), with the
 * input gather of `mode` (0 tokens, 1 conv1d, 2 conv2d, 3 any conv: see dense.glsl for the
 * geometry words height .. dims); z (absent: none) keeps the pre-activations for backward. */
#define VOLUMETRIC_DENSE_ARGS_IN(X, P)                                                                           \
  X(WEFT_IN(P), weights) X(WEFT_IN(P), scales) X(WEFT_IN(P), bias) X(WEFT_IN(Globals), x) X(WEFT_OUT(Globals), y) \
  X(WEFT_U32, rows) X(WEFT_U32, cols) X(WEFT_U32, row_words) X(WEFT_U32, act) X(WEFT_OUT(Globals), z)            \
  X(WEFT_U32, mode) X(WEFT_U32, positions) X(WEFT_U32, height) X(WEFT_U32, width) X(WEFT_U32, ksize)              \
  X(WEFT_U32, out_width) X(WEFT_U32, depth) X(WEFT_U32, out_height) X(WEFT_U32, transposed) X(WEFT_U32, dims)
#define VOLUMETRIC_DENSE_ARGS(X) VOLUMETRIC_DENSE_ARGS_IN(X, Heap)
#define VOLUMETRIC_DENSE_TRAIN_ARGS(X) VOLUMETRIC_DENSE_ARGS_IN(X, Globals)

/* embedding (embedding.glsl): y[t][j] = table[x[t]][j] for seq tokens of dim values, from the
 * packed table of `vocab` rows (ids outside [0, vocab) give zero rows). */
#define VOLUMETRIC_EMBEDDING_ARGS_IN(X, P)                                                                     \
  X(WEFT_IN(P), table) X(WEFT_IN(P), scales) X(WEFT_IN(Globals), x) X(WEFT_OUT(Globals), y) X(WEFT_U32, seq) \
  X(WEFT_U32, dim) X(WEFT_U32, row_words) X(WEFT_U32, vocab)
#define VOLUMETRIC_EMBEDDING_ARGS(X) VOLUMETRIC_EMBEDDING_ARGS_IN(X, Heap)
#define VOLUMETRIC_EMBEDDING_TRAIN_ARGS(X) VOLUMETRIC_EMBEDDING_ARGS_IN(X, Globals)

/* kmeans (kmeans.glsl): scores[t][j] = -|x_t - c_j|^2 for seq rows of `width` values against
 * the k packed centroids. */
#define VOLUMETRIC_KMEANS_ARGS_IN(X, P)                                                                              \
  X(WEFT_IN(P), centroids) X(WEFT_IN(P), scales) X(WEFT_IN(Globals), x) X(WEFT_OUT(Globals), scores) X(WEFT_U32, seq) \
  X(WEFT_U32, width) X(WEFT_U32, k) X(WEFT_U32, row_words)
#define VOLUMETRIC_KMEANS_ARGS(X) VOLUMETRIC_KMEANS_ARGS_IN(X, Heap)
#define VOLUMETRIC_KMEANS_TRAIN_ARGS(X) VOLUMETRIC_KMEANS_ARGS_IN(X, Globals)

/* norm (norm.glsl): RMSNorm (layer 0) or LayerNorm (layer 1) of `rows` rows of n values, gain
 * (and beta, LayerNorm only) from the parameters, eps added to the variance. */
#define VOLUMETRIC_NORM_ARGS_IN(X, P)                                                                         \
  X(WEFT_IN(Globals), x) X(WEFT_OUT(Globals), y) X(WEFT_IN(P), gain) X(WEFT_IN(P), beta) X(WEFT_U32, rows) \
  X(WEFT_U32, n) X(WEFT_F32, eps) X(WEFT_U32, layer)
#define VOLUMETRIC_NORM_ARGS(X) VOLUMETRIC_NORM_ARGS_IN(X, Heap)
#define VOLUMETRIC_NORM_TRAIN_ARGS(X) VOLUMETRIC_NORM_ARGS_IN(X, Globals)

/* recurrent_cell (recurrent_cell.glsl): time step t of an RNN / GRU / LSTM (kind 0 / 1 / 2) of
 * `hidden` units from the projections gx (all steps) and gh (this step), with the biases and
 * the LSTM cell state c; store (absent: none) keeps the states backward needs. y is the Globals
 * word of h_0: the cell reads h_{t-1} at y + (t - 1) * hidden and writes h_t at y + t * hidden,
 * and the stage declares the rows it reads and writes itself (the mesh one row each). */
#define VOLUMETRIC_RECURRENT_CELL_ARGS_IN(X, P)                                                                    \
  X(WEFT_IN(Globals), gx) X(WEFT_IN(Globals), gh) X(WEFT_U32, y) X(WEFT_INOUT(Globals), c) X(WEFT_IN(P), bias)     \
  X(WEFT_IN(P), bias_h) X(WEFT_U32, t) X(WEFT_U32, hidden) X(WEFT_U32, kind) X(WEFT_OUT(Globals), store)
#define VOLUMETRIC_RECURRENT_CELL_ARGS(X) VOLUMETRIC_RECURRENT_CELL_ARGS_IN(X, Heap)
#define VOLUMETRIC_RECURRENT_CELL_TRAIN_ARGS(X) VOLUMETRIC_RECURRENT_CELL_ARGS_IN(X, Globals)

/* softmax: y = softmax(x) per row of n values, `rows` rows. */
#define VOLUMETRIC_SOFTMAX_ARGS(X) X(WEFT_IN(Globals), x) X(WEFT_OUT(Globals), y) X(WEFT_U32, rows) X(WEFT_U32, n)

/* swiglu_gate: h = silu(a) * b over count values. */
#define VOLUMETRIC_SWIGLU_GATE_ARGS(X) X(WEFT_IN(Globals), a) X(WEFT_IN(Globals), b) X(WEFT_OUT(Globals), h) X(WEFT_U32, count)

/* attention: o = softmax(q k^T / sqrt(d / heads)) v per head, seq tokens of d values. */
#define VOLUMETRIC_ATTENTION_ARGS(X)                                                                          \
  X(WEFT_IN(Globals), q) X(WEFT_IN(Globals), k) X(WEFT_IN(Globals), v) X(WEFT_OUT(Globals), o) X(WEFT_U32, seq) \
  X(WEFT_U32, d) X(WEFT_U32, heads)

/* copy: dst = src (accumulate 0) or dst += src (accumulate 1; the stage then also declares dst
 * read) over count values. */
#define VOLUMETRIC_COPY_ARGS(X) X(WEFT_IN(Globals), src) X(WEFT_OUT(Globals), dst) X(WEFT_U32, count) X(WEFT_U32, accumulate)

/* dense_backward: backward of dense.glsl (f32 weights in Globals); geometry as dense's, mode 3
 * packing its flags into mode (3 | transposed << 4 | dims << 8).
 *   phase 0: dz = dy * act'(z), grad_b        (reads dy, z; writes dz, grad_b)
 *   phase 1: dx from weights and dz           (reads weights, dz; writes dx)
 *   phase 2: grad_w from dz and x             (reads dz, x; writes grad_w)
 * dz is a u32 word index: the stage declares it written (phase 0) or read (phases 1, 2). */
#define VOLUMETRIC_DENSE_BACKWARD_ARGS(X)                                                                       \
  X(WEFT_U32, phase) X(WEFT_IN(Globals), weights) X(WEFT_IN(Globals), z) X(WEFT_IN(Globals), dy) X(WEFT_U32, dz) \
  X(WEFT_IN(Globals), x) X(WEFT_OUT(Globals), dx) X(WEFT_OUT(Globals), grad_w) X(WEFT_OUT(Globals), grad_b)     \
  X(WEFT_U32, rows) X(WEFT_U32, cols) X(WEFT_U32, act) X(WEFT_U32, mode) X(WEFT_U32, positions)                 \
  X(WEFT_U32, height) X(WEFT_U32, width) X(WEFT_U32, ksize) X(WEFT_U32, out_width) X(WEFT_U32, depth)           \
  X(WEFT_U32, out_height)

/* norm_backward: backward of norm.glsl (parameters in Globals).
 *   phase 0: dx        (reads x, dy, gain; writes dx)
 *   phase 1: grad_gain, grad_beta (LayerNorm only)  (reads x, dy; writes grad_gain, grad_beta) */
#define VOLUMETRIC_NORM_BACKWARD_ARGS(X)                                                                            \
  X(WEFT_U32, phase) X(WEFT_IN(Globals), x) X(WEFT_IN(Globals), dy) X(WEFT_OUT(Globals), dx) X(WEFT_IN(Globals), gain) \
  X(WEFT_OUT(Globals), grad_gain) X(WEFT_OUT(Globals), grad_beta) X(WEFT_U32, rows) X(WEFT_U32, n) X(WEFT_F32, eps)    \
  X(WEFT_U32, layer)

/* softmax_backward: dx = y * (dy - sum(dy * y)) per row of n values, `rows` rows. */
#define VOLUMETRIC_SOFTMAX_BACKWARD_ARGS(X) \
  X(WEFT_IN(Globals), y) X(WEFT_IN(Globals), dy) X(WEFT_OUT(Globals), dx) X(WEFT_U32, rows) X(WEFT_U32, n)

/* loss_grad: loss = mean((y - target)^2) over n values and dy = 2 (y - target) / n. */
#define VOLUMETRIC_LOSS_GRAD_ARGS(X) \
  X(WEFT_IN(Globals), y) X(WEFT_IN(Globals), target) X(WEFT_OUT(Globals), dy) X(WEFT_OUT(Globals), loss) X(WEFT_U32, n)

/* loss_grad (MSE) and cross_entropy_grad (softmax cross-entropy: loss = -sum t log softmax(y),
 * dy = softmax(y) - t) share these arguments. */

/* optimizer: one SGD (adam 0) or Adam (adam 1) step over count parameters p with gradients g,
 * moments m, v and gradient accumulators acc; hyper holds lr, lr_t, eps_t and the batch scale
 * (written by the host per replay): scale 0 adds g to acc only, scale s > 0 steps with
 * (acc + g) * s and clears acc. p, m, v and acc are updated in place. */
#define VOLUMETRIC_OPTIMIZER_ARGS(X)                                                                      \
  X(WEFT_INOUT(Globals), p) X(WEFT_IN(Globals), g) X(WEFT_INOUT(Globals), m) X(WEFT_INOUT(Globals), v) \
  X(WEFT_INOUT(Globals), acc) X(WEFT_U32, count) X(WEFT_U32, adam) X(WEFT_IN(Globals), hyper) X(WEFT_F32, beta1) X(WEFT_F32, beta2)

/* swiglu_gate_backward: da = dh * b * silu'(a), db = dh * silu(a) over count values. */
#define VOLUMETRIC_SWIGLU_GATE_BACKWARD_ARGS(X)                                                                \
  X(WEFT_IN(Globals), a) X(WEFT_IN(Globals), b) X(WEFT_IN(Globals), dh) X(WEFT_OUT(Globals), da) X(WEFT_OUT(Globals), db) \
  X(WEFT_U32, count)

/* embedding_backward: grad[r][j] = sum of dy[t][j] over the tokens t with id r (ids from x);
 * dx (absent: none) gets zeros (token ids have no gradient). */
#define VOLUMETRIC_EMBEDDING_BACKWARD_ARGS(X)                                                                         \
  X(WEFT_IN(Globals), x) X(WEFT_IN(Globals), dy) X(WEFT_OUT(Globals), grad) X(WEFT_U32, seq) X(WEFT_U32, dim) \
  X(WEFT_U32, vocab) X(WEFT_OUT(Globals), dx)

/* kmeans_backward: backward of the k-means scores from ds.
 *   phase 0: grad_c  (reads x, centroids, ds; writes grad_c)
 *   phase 1: dx      (reads x, centroids, ds; writes dx) */
#define VOLUMETRIC_KMEANS_BACKWARD_ARGS(X)                                                                          \
  X(WEFT_U32, phase) X(WEFT_IN(Globals), x) X(WEFT_IN(Globals), centroids) X(WEFT_IN(Globals), ds)                  \
  X(WEFT_OUT(Globals), grad_c) X(WEFT_OUT(Globals), dx) X(WEFT_U32, seq) X(WEFT_U32, width) X(WEFT_U32, k)

/* rnn_step_backward: step t of backpropagation through time (T steps, `hidden` units) from dy,
 * the stored states and h (y): the pre-activation gradients ax / ah, dh_next / dc_next for the
 * step before, dhd (GRU's direct path). */
#define VOLUMETRIC_RNN_STEP_BACKWARD_ARGS(X)                                                                       \
  X(WEFT_U32, kind) X(WEFT_U32, t) X(WEFT_U32, steps) X(WEFT_U32, hidden) X(WEFT_IN(Globals), dy)                  \
  X(WEFT_IN(Globals), store) X(WEFT_IN(Globals), y) X(WEFT_IN(Globals), dh_next) X(WEFT_INOUT(Globals), dc_next)   \
  X(WEFT_OUT(Globals), ax) X(WEFT_OUT(Globals), ah) X(WEFT_OUT(Globals), dhd)

/* attention_backward: backward of attention.comp.
 *   phase 0, per (token, head): dq, and the probabilities and score gradients of the row
 *            (reads q, k, v, dout; writes dq, probs, dscores)
 *   phase 1, per (token, head): dk, dv  (reads q, dout, probs, dscores; writes dk, dv)
 * probs and dscores (heads x seq x seq) are u32 word indices: the stage declares them. */
#define VOLUMETRIC_ATTENTION_BACKWARD_ARGS(X)                                                                     \
  X(WEFT_U32, phase) X(WEFT_IN(Globals), q) X(WEFT_IN(Globals), k) X(WEFT_IN(Globals), v) X(WEFT_IN(Globals), dout) \
  X(WEFT_OUT(Globals), dq) X(WEFT_OUT(Globals), dk) X(WEFT_OUT(Globals), dv) X(WEFT_U32, probs)                   \
  X(WEFT_U32, dscores) X(WEFT_U32, seq) X(WEFT_U32, d) X(WEFT_U32, heads)

#ifdef __cplusplus
namespace weft::volumetric {
WEFT_KERNEL_ARGS(DenseArgs, VOLUMETRIC_DENSE_ARGS)
WEFT_KERNEL_ARGS(DenseTrainArgs, VOLUMETRIC_DENSE_TRAIN_ARGS)
WEFT_KERNEL_ARGS(EmbeddingArgs, VOLUMETRIC_EMBEDDING_ARGS)
WEFT_KERNEL_ARGS(EmbeddingTrainArgs, VOLUMETRIC_EMBEDDING_TRAIN_ARGS)
WEFT_KERNEL_ARGS(KMeansArgs, VOLUMETRIC_KMEANS_ARGS)
WEFT_KERNEL_ARGS(KMeansTrainArgs, VOLUMETRIC_KMEANS_TRAIN_ARGS)
WEFT_KERNEL_ARGS(NormArgs, VOLUMETRIC_NORM_ARGS)
WEFT_KERNEL_ARGS(NormTrainArgs, VOLUMETRIC_NORM_TRAIN_ARGS)
WEFT_KERNEL_ARGS(RecurrentCellArgs, VOLUMETRIC_RECURRENT_CELL_ARGS)
WEFT_KERNEL_ARGS(RecurrentCellTrainArgs, VOLUMETRIC_RECURRENT_CELL_TRAIN_ARGS)
WEFT_KERNEL_ARGS(SoftmaxArgs, VOLUMETRIC_SOFTMAX_ARGS)
WEFT_KERNEL_ARGS(SwigluGateArgs, VOLUMETRIC_SWIGLU_GATE_ARGS)
WEFT_KERNEL_ARGS(AttentionArgs, VOLUMETRIC_ATTENTION_ARGS)
WEFT_KERNEL_ARGS(CopyArgs, VOLUMETRIC_COPY_ARGS)
WEFT_KERNEL_ARGS(DenseBackwardArgs, VOLUMETRIC_DENSE_BACKWARD_ARGS)
WEFT_KERNEL_ARGS(NormBackwardArgs, VOLUMETRIC_NORM_BACKWARD_ARGS)
WEFT_KERNEL_ARGS(SoftmaxBackwardArgs, VOLUMETRIC_SOFTMAX_BACKWARD_ARGS)
WEFT_KERNEL_ARGS(LossGradArgs, VOLUMETRIC_LOSS_GRAD_ARGS)
WEFT_KERNEL_ARGS(OptimizerArgs, VOLUMETRIC_OPTIMIZER_ARGS)
WEFT_KERNEL_ARGS(SwigluGateBackwardArgs, VOLUMETRIC_SWIGLU_GATE_BACKWARD_ARGS)
WEFT_KERNEL_ARGS(EmbeddingBackwardArgs, VOLUMETRIC_EMBEDDING_BACKWARD_ARGS)
WEFT_KERNEL_ARGS(KMeansBackwardArgs, VOLUMETRIC_KMEANS_BACKWARD_ARGS)
WEFT_KERNEL_ARGS(RnnStepBackwardArgs, VOLUMETRIC_RNN_STEP_BACKWARD_ARGS)
WEFT_KERNEL_ARGS(AttentionBackwardArgs, VOLUMETRIC_ATTENTION_BACKWARD_ARGS)
}  // namespace weft::volumetric
#endif
#endif /* VOLUMETRIC_ARGS_H */
