// Activation kernels (forward and backward of every mode), compiled once per
// ISA level. Each mode is a template argument, so that each loop body is one
// straight-line expression of vmath calls and selects, which GCC vectorizes.
#include "cpu/activation.hpp"
#include "cpu/kernels/util/act_math.hpp"
#include "cpu/kernels/util/common.hpp"
#include "cpu/kernels/util/staging.hpp"
#include "cpu/kernels/util/vmath.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

// The math of one mode on n contiguous elements of the compute type: the
// only code that depends on the mode, and the only vectorized vmath bodies
// of the family (one per mode, direction and compute type). The loops
// around them (16-bit storage, strides, beta != 0, streaming stores) depend
// on the storage type only and call them through a pointer, a chunk of
// L1-sized buffers at a time: next to the memory traffic of an elementwise
// op the extra pass through L1 is cheap, while compiling the vmath body
// into each mode x storage type x case (15 x 4 x 5 per direction) made
// this the slowest unit of the build (minutes for AVX-512).
// stream: y is written with streaming stores (only the modes of
// kVectorForward take it; the others' results are staged and streamed by
// the driver).
template <class C>
using ForwardMath = void (*)(const C *x, C *y, int64_t n, C alpha, Params<C> p, bool stream);
template <class C>
using BackwardMath = void (*)(const C *x, const C *y, const C *dy, C *dx, int64_t n, C alpha, Params<C> p);

template <Act M, class C>
void forward_math(const C *x, C *y, int64_t n, C alpha, Params<C> p, bool stream) {
    if constexpr (kVectorForward<M, C>) {
        using V = vec_t<C>;
        constexpr int64_t W = sizeof(V) / sizeof(C);
        // alpha = 1 (the usual case) skips a multiply of the ~20 operations.
        const auto f = [&](V v) { return alpha == C(1) ? act_forward<M>(v, p) : alpha * act_forward<M>(v, p); };
        // The ends go through a vector too: an element's result does not depend on where it is.
        const auto part = [&](int64_t i, int64_t m) {
            alignas(64) C t[W] = {};
            std::memcpy(t, x + i, sizeof(C) * size_t(m));
            store_vec(t, f(load_vec<V>(t)));
            std::memcpy(y + i, t, sizeof(C) * size_t(m));
        };
        int64_t i = 0;
        if (stream) {
            // Ordinary stores up to y's first whole line, then whole lines streamed.
            constexpr int64_t L = kStreamLineBytes / int64_t(sizeof(C));
            const int64_t head = imin_(
                n, int64_t((kStreamLineBytes - reinterpret_cast<uintptr_t>(y) % kStreamLineBytes) % kStreamLineBytes) /
                       int64_t(sizeof(C)));
            for (; i < head; i += W) part(i, imin_(W, head - i));
            for (i = head; i + L <= n; i += L) {
                prefetch_stream(x + i);
                for (int64_t j = i; j < i + L; j += W) stream_vector(y + j, f(load_vec<V>(x + j)));
            }
        }
        for (; i + W <= n; i += W) store_vec(y + i, f(load_vec<V>(x + i)));
        if (i < n) part(i, n - i);
    } else {
        for (int64_t i = 0; i < n; ++i) y[i] = alpha * act_forward<M>(x[i], p);
    }
}

template <Act M, class C>
void backward_math(const C *x, const C *y, const C *dy, C *dx, int64_t n, C alpha, Params<C> p) {
    for (int64_t i = 0; i < n; ++i) dx[i] = alpha * act_backward<M>(x[i], y[i], dy[i], p);
}

// math_streams: math writes a contiguous y of C with streaming stores itself.
template <class T, class C = compute_t<T>>
void forward_typed(const ExecContext &ctx, const ActivationForwardArgs &a, ForwardMath<C> math, bool math_streams) {
    const StridedLoop &L = a.loop;
    const Params<C> p{static_cast<C>(a.op.coef), static_cast<C>(a.op.swish_beta)};
    const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const T *x = static_cast<const T *>(a.x);
    T *y = static_cast<T *>(a.y);
    const int64_t sy = L.inner_stride(0), sx = L.inner_stride(1);
    const bool unit = sy == 1 && sx == 1, blend = beta != C(0);
    const bool stream = unit && !blend && use_streaming_stores(L.total() * int64_t(sizeof(T)), y, x);
    parallel_ranges(ctx, L.total(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
        for_each_run(L, begin, end, [&](const int64_t *off, int64_t n) {
            const T *xp = x + off[1];
            T *yp = y + off[0];
            const bool stream_run = stream && n >= kStreamingMinRun;
            if constexpr (std::is_same_v<T, C>) {
                if (unit && !blend && (!stream_run || math_streams)) {
                    math(xp, yp, n, alpha, p, stream_run);
                    if (stream_run) streaming_fence();
                    return;
                }
            }
            alignas(64) C in[kStage], out[kStage];
            for (int64_t i = 0; i < n; i += kStage) {
                const int64_t c = imin_(kStage, n - i);
                math(staged_in(xp + i * sx, sx, c, in), out, c, alpha, p, false);
                staged_out(yp + i * sy, sy, out, c, beta, blend, stream_run);
            }
            if (stream_run) streaming_fence();
        });
    });
}

template <class T, class C = compute_t<T>>
void backward_typed(const ExecContext &ctx, const ActivationBackwardArgs &a, BackwardMath<C> math) {
    const StridedLoop &L = a.loop;
    const Params<C> p{static_cast<C>(a.op.coef), static_cast<C>(a.op.swish_beta)};
    const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const T *dy = static_cast<const T *>(a.dy);
    const T *y = static_cast<const T *>(a.y);
    const T *x = static_cast<const T *>(a.x);
    T *dx = static_cast<T *>(a.dx);
    const int64_t sdx = L.inner_stride(0), sdy = L.inner_stride(1), sy = L.inner_stride(2), sx = L.inner_stride(3);
    const bool unit = sdx == 1 && sdy == 1 && sy == 1 && sx == 1, blend = beta != C(0);
    const bool stream = unit && !blend && use_streaming_stores(L.total() * int64_t(sizeof(T)), dx, dy, y, x);
    parallel_ranges(ctx, L.total(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
        for_each_run(L, begin, end, [&](const int64_t *off, int64_t n) {
            const T *dyp = dy + off[1], *yp = y + off[2], *xp = x + off[3];
            T *dxp = dx + off[0];
            const bool stream_run = stream && n >= kStreamingMinRun;
            if constexpr (std::is_same_v<T, C>) {
                if (unit && !blend && !stream_run) return math(xp, yp, dyp, dxp, n, alpha, p);
            }
            alignas(64) C bx[kStage], by[kStage], bdy[kStage], out[kStage];
            for (int64_t i = 0; i < n; i += kStage) {
                const int64_t c = imin_(kStage, n - i);
                math(staged_in(xp + i * sx, sx, c, bx), staged_in(yp + i * sy, sy, c, by),
                     staged_in(dyp + i * sdy, sdy, c, bdy), out, c, alpha, p);
                staged_out(dxp + i * sdx, sdx, out, c, beta, blend, stream_run);
            }
            if (stream_run) streaming_fence();
        });
    });
}

void forward(const ExecContext &ctx, const ActivationForwardArgs &a) {
    visit_float_dtype(a.dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        visit_act(a.op, [&](auto mode) {
            constexpr Act M = decltype(mode)::value;
            forward_typed<T>(ctx, a, &forward_math<M, compute_t<T>>, kVectorForward<M, compute_t<T>>);
        });
    });
}

void backward(const ExecContext &ctx, const ActivationBackwardArgs &a) {
    visit_float_dtype(a.dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        visit_act(a.op,
                  [&](auto mode) { backward_typed<T>(ctx, a, &backward_math<decltype(mode)::value, compute_t<T>>); });
    });
}

}  // namespace

extern const ActivationKernels activation = {forward, backward};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
