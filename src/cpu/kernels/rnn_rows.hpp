// RNN row kernels (src/cpu/rnn_rows.hpp), compiled once per ISA level.
#include "cpu/kernels/util/common.hpp"
#include "cpu/rnn_rows.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

// Rows per thread: at least kElementwiseGrain elements.
inline int64_t row_grain(int64_t cols) { return cols > 0 ? (kElementwiseGrain + cols - 1) / cols : 1; }

template <class S, class D>
void copy_typed(const ExecContext &ctx, const RnnCopyArgs &a) {
    const S *src = static_cast<const S *>(a.src);
    D *dst = static_cast<D *>(a.dst);
    parallel_ranges(ctx, a.rows, row_grain(a.cols), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
            const S *s = src + (a.src_off != nullptr ? a.src_off[r] : r * a.src_ld);
            D *d = dst + (a.dst_off != nullptr ? a.dst_off[r] : r * a.dst_ld);
            for (int64_t j = 0; j < a.cols; ++j) store(d + j, load<compute_t<D>>(s + j));
        }
    });
}

void copy(const ExecContext &ctx, const RnnCopyArgs &a) {
    if (a.rows <= 0 || a.cols <= 0) return;
    visit_float_dtype(a.src_dt, [&](auto s) {
        visit_float_dtype(a.dst_dt, [&](auto d) {
            copy_typed<typename decltype(s)::type, typename decltype(d)::type>(ctx, a);
        });
    });
}

void fill(const ExecContext &ctx, anydnnDataType_t dt, void *dst, const int64_t *dst_off, int64_t dst_ld,
          int64_t rows, int64_t cols, double value) {
    if (rows <= 0 || cols <= 0) return;
    visit_float_dtype(dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T *base = static_cast<T *>(dst);
        const compute_t<T> v = static_cast<compute_t<T>>(value);
        parallel_ranges(ctx, rows, row_grain(cols), [&](int64_t r0, int64_t r1) {
            for (int64_t r = r0; r < r1; ++r) {
                T *d = base + (dst_off != nullptr ? dst_off[r] : r * dst_ld);
                for (int64_t j = 0; j < cols; ++j) store(d + j, v);
            }
        });
    });
}

template <class C>
void add_typed(const ExecContext &ctx, int64_t rows, int64_t cols, const C *a, int64_t lda, const C *b, int64_t ldb,
               C *out, int64_t ldo) {
    parallel_ranges(ctx, rows, row_grain(cols), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
            const C *x = a + r * lda, *y = b + r * ldb;
            C *o = out + r * ldo;
            for (int64_t j = 0; j < cols; ++j) o[j] = x[j] + y[j];
        }
    });
}

void add(const ExecContext &ctx, anydnnDataType_t dt, int64_t rows, int64_t cols, const void *a, int64_t lda,
         const void *b, int64_t ldb, void *out, int64_t ldo) {
    if (rows <= 0 || cols <= 0) return;
    if (dt == ANYDNN_DATA_DOUBLE)
        add_typed(ctx, rows, cols, static_cast<const double *>(a), lda, static_cast<const double *>(b), ldb,
                  static_cast<double *>(out), ldo);
    else
        add_typed(ctx, rows, cols, static_cast<const float *>(a), lda, static_cast<const float *>(b), ldb,
                  static_cast<float *>(out), ldo);
}

}  // namespace

extern const RnnRowsKernels rnn_rows = {copy, fill, add};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
