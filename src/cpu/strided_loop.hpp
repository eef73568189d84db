// The iteration space of an elementwise op over strided tensors.
//
// Every elementwise op (transform, add, op-tensor, activation) walks the
// output's elements and, for each, one element of each input at the same
// coordinates (or at coordinate 0 along a dimension the input broadcasts).
// make_strided_loop() turns the tensors' dimensions and strides into the
// fewest loops that visit them: size-1 dimensions vanish, dimensions are
// ordered by the output's strides (innermost last), and neighbours that are
// contiguous in every operand merge. Packed tensors of one layout become a
// single run of `total()` elements, which the kernels vectorize.
#pragma once

#include <cstdint>

#include "core/tensor_desc.hpp"

namespace anydnn::cpu {

constexpr int kMaxOperands = 8;  // normalization walks 7 (x, out, dy|z, dz, mask, two key indices)

struct StridedLoop {
    int nd = 1;    // >= 1; dims[nd - 1] is the innermost run
    int nops = 1;  // operand 0 is the output
    int64_t dims[kMaxDims] = {1};
    int64_t strides[kMaxOperands][kMaxDims] = {};

    int64_t total() const {
        int64_t n = 1;
        for (int i = 0; i < nd; ++i) n *= dims[i];
        return n;
    }
    int64_t inner() const { return dims[nd - 1]; }
    int64_t inner_stride(int op) const { return strides[op][nd - 1]; }
};

// dims: the output's dimensions; strides[k]: operand k's strides (0 where it
// broadcasts). Operand 0 is the output.
StridedLoop make_strided_loop(int nd, const int64_t *dims, int nops, const int64_t *const *strides);

// Strides of `in` as seen from an output of dimensions `out_dims`: its own
// stride where the dimension matches, 0 where `in` has size 1 (broadcast).
void broadcast_strides(const TensorLayout &in, const TensorLayout &out, int64_t *strides);

}  // namespace anydnn::cpu
