// Staging through L1: the loops of a kernel family that keep its math out of
// the storage type's cases. The math runs on contiguous buffers of the
// compute type, compiled once per compute type; 16-bit storage, strides and
// beta-blending are the business of these copies, which depend on the
// storage type only (docs/ARCHITECTURE.md, "Compile time").
#pragma once

#include "cpu/kernels/util/common.hpp"
#include "cpu/kernels/util/streaming_store.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {

// Elements per staging chunk: four buffers of it in double take 16 KiB.
constexpr int64_t kStage = 512;

// The copies are kept out of line, compiled once per storage and compute
// type: inlined, the vectorized 16-bit conversions were compiled again at
// every call site of every family's drivers.

// n elements of p (stride s) in the compute type: p itself when it already
// is contiguous C, else a copy in buf.
template <class C, class T>
[[gnu::noinline]] const C *staged_in(const T *p, int64_t s, int64_t n, C *buf) {
    if constexpr (std::is_same_v<T, C>) {
        if (s == 1) return p;
    }
    for (int64_t i = 0; i < n; ++i) buf[i] = load<C>(p + i * s);
    return buf;
}

// Writes the n <= kStage results r to p (stride s), blended with p's old
// contents when beta != 0, or with streaming stores (contiguous p only).
template <class T, class C>
[[gnu::noinline]] void staged_out(T *p, int64_t s, const C *r, int64_t n, C beta, bool blend, bool stream) {
    if (stream) {
        if constexpr (std::is_same_v<T, C>) {
            stream_copy(p, r, n);
        } else {
            alignas(64) T t[kStage];
            for (int64_t i = 0; i < n; ++i) store(t + i, r[i]);
            stream_copy(p, t, n);
        }
    } else if (blend) {
        for (int64_t i = 0; i < n; ++i) store(p + i * s, r[i] + beta * load<C>(p + i * s));
    } else {
        for (int64_t i = 0; i < n; ++i) store(p + i * s, r[i]);
    }
}

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
