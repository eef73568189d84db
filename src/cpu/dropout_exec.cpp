#include "cpu/dropout_exec.hpp"

#include <cmath>

#include "cpu/dropout.hpp"

namespace anydnn::cpu {

namespace {

DropoutArgs make_args(const ops::DropoutProblem &p, const void *in, void *out, void *mask) {
    DropoutArgs a{};
    a.dt = p.dt;
    a.loop.nd = p.nd;
    a.loop.nops = 2;
    for (int i = 0; i < p.nd; ++i) {
        a.loop.dims[i] = p.dims[i];
        a.loop.strides[0][i] = p.out_strides[i];
        a.loop.strides[1][i] = p.in_strides[i];
    }
    a.in = in;
    a.out = out;
    a.mask = static_cast<uint8_t *>(mask);
    // In the compute type: float 1 / (1 - p) for float storage, so the
    // scale is the one a float caller would compute.
    a.scale = p.dt == ANYDNN_DATA_DOUBLE ? 1.0 / (1.0 - p.p)
                                          : static_cast<double>(1.0f / (1.0f - static_cast<float>(p.p)));
    return a;
}

}  // namespace

void execute_dropout_forward(const Handle &h, const ops::DropoutProblem &p, uint64_t seed, uint64_t call,
                             const void *x, void *y, void *mask, int64_t first) {
    DropoutArgs a = make_args(p, x, y, mask);
    a.first = first;
    a.mode = p.p == 0 ? DropoutMode::keep_all : p.p == 1 ? DropoutMode::drop_all : DropoutMode::random;
    a.seed = seed;
    a.call = call;
    // Dropped when the word is below p * 2^32 (rounded down; p < 1 here, so it fits).
    const double t = std::floor(p.p * 4294967296.0);
    a.threshold = t >= 4294967295.0 ? 4294967295u : static_cast<uint32_t>(t);
    dropout_kernels(h.isa).run(ExecContext{h.threads()}, a);
}

void execute_dropout_backward(const Handle &h, const ops::DropoutProblem &p, const void *dy, void *dx,
                              const void *mask) {
    DropoutArgs a = make_args(p, dy, dx, const_cast<void *>(mask));  // replay only reads it
    a.mode = DropoutMode::replay;
    dropout_kernels(h.isa).run(ExecContext{h.threads()}, a);
}

}  // namespace anydnn::cpu
