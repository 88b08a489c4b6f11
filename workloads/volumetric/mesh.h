// The device side of a volumetric network: the whole grid as one Weft program, recorded once.
//
// Every cell's output has two Globals buffers (front = the state between submissions, back =
// being written). One submission runs `steps` steps; step t reads parity t % 2 and writes the
// other, so outputs are double-buffered and no cell ever reads a buffer being written in the
// same step. After an odd number of steps a copy stage moves the back buffers to the front.
//   Schedule::Pass  a step is one forward pass in traversal order: a cell whose source comes
//                   earlier reads this step's output of it, else the previous step's (so a
//                   remote link to a later cell is recurrence), exactly as reference forward().
//   Schedule::Tick  a step is one step-mesh clock tick: every cell reads the previous tick's
//                   outputs (reference step()); one tick = one replay of the recorded steps.
//
// Device kernels compute from the packed weights in Heap (packed.glsl decodes every one of the
// 21 types). Every layer type has a device path: Dense, Conv1D, Conv2D and the projections of
// SwiGLU, MHA, RNN/GRU/LSTM run dense.glsl (with an input gather for the convolutions),
// Embedding runs embedding.glsl; RMSNorm, LayerNorm, Softmax, the SwiGLU gate, the attention
// core and the recurrent cell are f32 kernels; Sequential, Parallel (concat / add) and Residual
// containers nest.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <weft/weft.h>

#include "model.h"
#include "reference.h"

namespace weft::volumetric {

enum class Schedule { Pass, Tick };

struct MeshOptions {
  Schedule schedule = Schedule::Pass;
  uint32_t steps = 1;  // passes or ticks per submission
};

// The most steps (passes or ticks) one submission or one reference run takes: every step of a
// mesh is recorded into its program, so a bound keeps a mistyped count from recording (or
// running) for hours.
inline constexpr uint32_t kMaxStepsPerRun = 1024;
// BadInput unless 1 <= steps <= kMaxStepsPerRun.
uint32_t checked_steps(uint32_t steps);
// The CPU reference's `options.steps` passes or ticks from the zero state: what a fresh
// DeviceMesh with these options holds after one run().
MeshState run_reference(Network& net, const std::vector<float>& x, const MeshOptions& options);

bool device_supports(const Layer& l);

class DeviceMesh {
 public:
  // Packs every weight matrix in its layer's type (WeightStore::morph) and uploads it.
  DeviceMesh(Device& device, Network& net, MeshOptions options = {});
  ~DeviceMesh();
  void set_input(const std::vector<float>& x);
  void run();  // one submission: options.steps steps
  std::vector<float> output(uint32_t cell);  // the cell's output after the last step
  std::vector<float> output() { return output(cells_ - 1); }
  MeshState state();
  void set_state(const MeshState& s);
  double gpu_ns();             // GPU time of the last submission, timestamps
  uint64_t weight_bytes() const { return weight_bytes_; }  // packed weights + scales in Heap
  Executable& executable() { return *exe_; }

 private:
  uint32_t cells_ = 0, input_ = 0;
  uint32_t input_vocab_ = 0;  // cell 0 is an Embedding of this vocabulary reading the input (0: not)
  std::vector<uint32_t> out_sizes_;
  uint64_t weight_bytes_ = 0;
  std::unique_ptr<Executable> exe_;
};

}  // namespace weft::volumetric
