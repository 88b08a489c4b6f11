// numpy's default argsort (kind="quicksort": introsort with median-of-3 partitions, insertion
// sort below 16 elements, heapsort past the depth limit) for float64, step for step.
//
// Burst sampling keeps the n nodes with the highest feature evidence via argsort(fe)[-n:], and
// synthetic graphs have many nodes with exactly equal evidence; which tied nodes make the cut is
// an accident of the sort algorithm. Reproducing numpy's scalar algorithm makes the CPU backend
// choose the same nodes as the recorded Monty runs. (numpy builds that dispatch argsort to
// AVX-512 sorting networks break ties differently; the spec calls tie order implementation-defined.)
#pragma once

#include <cstdint>
#include <vector>

namespace weft::hypothesis_update {

std::vector<int64_t> numpy_argsort(const std::vector<double>& values);

}  // namespace weft::hypothesis_update
