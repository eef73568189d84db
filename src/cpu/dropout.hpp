// The dropout kernel family: the Philox4x32-10 generator and the masked
// scaling of the forward and backward passes. Declarations only;
// src/cpu/kernels/dropout.hpp implements them once per ISA level.
#pragma once

#include <cstdint>

#include "cpu/isa_table.hpp"
#include "cpu/parallel.hpp"
#include "cpu/strided_loop.hpp"

namespace anydnn::cpu {

enum class DropoutMode {
    random,    // forward, 0 < p < 1: draw the mask, write it and y
    keep_all,  // forward, p = 0: y = x, mask all 1
    drop_all,  // forward, p = 1: y = 0, mask all 0
    replay,    // backward: read the mask
};

// Element e (first + its row-major index over the tensor's dimensions) is
// dropped when word e % 4 of Philox4x32-10(counter = {e / 4 low, e / 4 high,
// call low, call high}, key = {seed low, seed high}) is below `threshold`
// (p * 2^32). `first` lets several tensors of one call (an RNN's layers)
// draw disjoint parts of the call's stream.
struct DropoutArgs {
    anydnnDataType_t dt;
    StridedLoop loop;  // operand 0: the output (y, dx), 1: the input (x, dy); row-major order kept
    const void *in;
    void *out;
    uint8_t *mask;  // one byte per element: 1 kept, 0 dropped (mask[0] is element `first`'s)
    int64_t first = 0;
    DropoutMode mode;
    uint64_t seed, call;
    uint32_t threshold;
    double scale;  // 1 / (1 - p), applied in the compute type
};

struct DropoutKernels {
    void (*run)(const ExecContext &, const DropoutArgs &);
    // out[i] = the 4 words of Philox4x32-10 at counter {block + i/4 ...}:
    // 4 * blocks words for blocks [block, block + blocks); for tests.
    void (*philox)(uint64_t block, uint64_t call, uint64_t seed, int64_t blocks, uint32_t *out);
};

ANYDNN_DECLARE_ISA_TABLE(DropoutKernels, dropout)

}  // namespace anydnn::cpu
