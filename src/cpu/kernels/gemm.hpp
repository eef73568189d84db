// GEMM in f32 and f64, compiled once per ISA level: the register-tile
// microkernels (FMA intrinsics on avx2 and avx512, the plain-loop tile of
// util/gemm_driver.hpp on generic) and the two kernel tables; the driver does
// the packing, blocking and threading. docs/ARCHITECTURE.md, "GEMM engine",
// explains the tile shapes and block sizes.
#include "cpu/gemm.hpp"
#include "cpu/kernels/util/gemm_driver.hpp"

#if ANYDNN_ISA_avx512 || ANYDNN_ISA_avx2
#include <immintrin.h>
#endif

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

#if ANYDNN_ISA_avx512 || ANYDNN_ISA_avx2

// The vector operations the tile needs, per element type. load_part and
// store_part touch only the first `lanes` (> 0) elements; load takes any
// address (B read in place: b_rows_in_place).
template <class T>
struct Vec;

#if ANYDNN_ISA_avx512
template <>
struct Vec<float> {
    using V = __m512;
    static constexpr int W = 16;
    static V zero() { return _mm512_setzero_ps(); }
    static V set1(float x) { return _mm512_set1_ps(x); }
    static V load(const float *p) { return _mm512_loadu_ps(p); }
    static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
    static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
    static V add(V a, V b) { return _mm512_add_ps(a, b); }
    static __mmask16 mask(int lanes) { return static_cast<__mmask16>(lanes >= W ? 0xffffu : (1u << lanes) - 1u); }
    static V load_part(const float *p, int lanes) { return _mm512_maskz_loadu_ps(mask(lanes), p); }
    static void store_part(float *p, V x, int lanes) { _mm512_mask_storeu_ps(p, mask(lanes), x); }
};
template <>
struct Vec<double> {
    using V = __m512d;
    static constexpr int W = 8;
    static V zero() { return _mm512_setzero_pd(); }
    static V set1(double x) { return _mm512_set1_pd(x); }
    static V load(const double *p) { return _mm512_loadu_pd(p); }
    static V fmadd(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
    static V mul(V a, V b) { return _mm512_mul_pd(a, b); }
    static V add(V a, V b) { return _mm512_add_pd(a, b); }
    static __mmask8 mask(int lanes) { return static_cast<__mmask8>(lanes >= W ? 0xffu : (1u << lanes) - 1u); }
    static V load_part(const double *p, int lanes) { return _mm512_maskz_loadu_pd(mask(lanes), p); }
    static void store_part(double *p, V x, int lanes) { _mm512_mask_storeu_pd(p, mask(lanes), x); }
};
#else
template <>
struct Vec<float> {
    using V = __m256;
    static constexpr int W = 8;
    static V zero() { return _mm256_setzero_ps(); }
    static V set1(float x) { return _mm256_set1_ps(x); }
    static V load(const float *p) { return _mm256_loadu_ps(p); }
    static V fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
    static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
    static V add(V a, V b) { return _mm256_add_ps(a, b); }
    static __m256i mask(int lanes) {
        return _mm256_cmpgt_epi32(_mm256_set1_epi32(lanes), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    }
    static V load_part(const float *p, int lanes) {
        return lanes >= W ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, mask(lanes));
    }
    static void store_part(float *p, V x, int lanes) {
        if (lanes >= W) _mm256_storeu_ps(p, x);
        else _mm256_maskstore_ps(p, mask(lanes), x);
    }
};
template <>
struct Vec<double> {
    using V = __m256d;
    static constexpr int W = 4;
    static V zero() { return _mm256_setzero_pd(); }
    static V set1(double x) { return _mm256_set1_pd(x); }
    static V load(const double *p) { return _mm256_loadu_pd(p); }
    static V fmadd(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
    static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
    static V add(V a, V b) { return _mm256_add_pd(a, b); }
    static __m256i mask(int lanes) {
        return _mm256_cmpgt_epi64(_mm256_set1_epi64x(lanes), _mm256_setr_epi64x(0, 1, 2, 3));
    }
    static V load_part(const double *p, int lanes) {
        return lanes >= W ? _mm256_loadu_pd(p) : _mm256_maskload_pd(p, mask(lanes));
    }
    static void store_part(double *p, V x, int lanes) {
        if (lanes >= W) _mm256_storeu_pd(p, x);
        else _mm256_maskstore_pd(p, mask(lanes), x);
    }
};
#endif

// Columns i of the rows r[0..7] (8 floats each) become r[i]: row r[t] ends
// up holding element t of every input row.
inline void transpose_8x8(__m256 r[8]) {
    __m256 t[8], s[8];
    for (int i = 0; i < 4; ++i) {
        t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 2; ++i) {
        s[4 * i] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], _MM_SHUFFLE(1, 0, 1, 0));
        s[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], _MM_SHUFFLE(3, 2, 3, 2));
        s[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], _MM_SHUFFLE(1, 0, 1, 0));
        s[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int i = 0; i < 4; ++i) {
        r[i] = _mm256_permute2f128_ps(s[i], s[i + 4], 0x20);
        r[i + 4] = _mm256_permute2f128_ps(s[i], s[i + 4], 0x31);
    }
}

// The rows r[0..3] (8 floats each) as 8 groups of 4 (element t of each row
// in group t), the groups in order across out[0..3].
inline void transpose_4x8(const __m256 r[4], __m256 out[4]) {
    const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    const __m256 s0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));  // groups 0 | 4
    const __m256 s1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));  // groups 1 | 5
    const __m256 s2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));  // groups 2 | 6
    const __m256 s3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));  // groups 3 | 7
    out[0] = _mm256_permute2f128_ps(s0, s1, 0x20);
    out[1] = _mm256_permute2f128_ps(s2, s3, 0x20);
    out[2] = _mm256_permute2f128_ps(s0, s1, 0x31);
    out[3] = _mm256_permute2f128_ps(s2, s3, 0x31);
}

// The transposing pack (pack_lanes_rows's contract) of a full f32 sliver
// in 8 x 8 blocks through registers, eight source rows at a time along the
// whole run: op(A) = A and op(B) = B^T, the common cases, and a gathered
// B's runs of contiguous steps (channels-last pixels) go through here.
template <int W>
void f32_pack_rows(const float *const *rows, int64_t len, int lanes, float *d) {
    static_assert(W % 8 == 0 || W == 4);
    if (lanes < W) {
        pack_lanes_rows<W>(rows, len, lanes, d);
        return;
    }
    const int64_t full = len / 8 * 8;
    if constexpr (W == 4) {
        for (int64_t q = 0; q < full; q += 8) {
            __m256 r[4], out[4];
            for (int l = 0; l < 4; ++l) r[l] = _mm256_loadu_ps(rows[l] + q);
            transpose_4x8(r, out);
            for (int i = 0; i < 4; ++i) _mm256_storeu_ps(d + q * 4 + i * 8, out[i]);
        }
    } else {
        // Eight rows at a time along the whole run: all W rows side by side
        // would each hold lines on one L1 set when the rows are a multiple
        // of 4 KiB apart (a 1x1 filter with 1024 input channels), more
        // lines than the set has ways.
        for (int g = 0; g < W; g += 8)
            for (int64_t q = 0; q < full; q += 8) {
                __m256 r[8];
                for (int l = 0; l < 8; ++l) r[l] = _mm256_loadu_ps(rows[g + l] + q);
                transpose_8x8(r);
                for (int t = 0; t < 8; ++t) _mm256_storeu_ps(d + (q + t) * W + g, r[t]);
            }
    }
    for (int l = 0; l < W; ++l)
        for (int64_t i = full; i < len; ++i) d[i * W + l] = rows[l][i];
}

// The MR x (NV * W) register tile, B's steps NR elements apart in a packed
// sliver, or b_step (ldb) in a full sliver read in place (BRows); NV below
// the full count serves the last, narrower sliver of C (always packed). A
// (TileA) is a packed sliver (kc groups of MR values) or read in place: row
// r at ap + r * lda with its kc steps contiguous (rows), or step p's MR
// values contiguous at ap + p * lda (steps: op(A) = A^T); rows past mr
// repeat row 0, never read beyond A. Out of line: inlined into the engine's loops, the
// tile shared the registers with their live values and GCC kept a B vector
// on the stack (an extra load per FMA row; 3-5% of 1x1 convolutions).
//
// Lean on purpose: on a host whose core is shared (SMT siblings, a busy
// neighbour), each instruction that is not a load or an FMA costs issue
// slots the FMAs need. The steps go in blocks of a cache line of A, four to
// an iteration, the prefetches once per block; the common store (a whole
// tile, alpha 1, nothing to add) skips the epilogue's per-vector checks.
template <class T, int MR, int NR, int NV, TileA Mode, bool BRows = false>
[[gnu::noinline]] void gemm_tile(int64_t kc, const T *ap, int64_t lda, const T *bp, int64_t b_step, T *c, int64_t ldc,
                                 int mr, int nr, const TileOut<T> &o) {
    constexpr bool InPlace = Mode == TileA::rows;
    // A constant in packed slivers: a run-time step took a register the
    // A-rows tile had not to spare (3% slower from the spills).
    const int64_t bstep = BRows ? b_step : NR;
    using X = Vec<T>;
    using V = typename X::V;
    constexpr int kLine = 64 / sizeof(T);  // elements per cache line
    // C is read (or written) only after the reduction, by then from L1: its
    // misses overlap the FMAs instead of stalling the store.
    for (int r = 0; r < mr; ++r) {
        const T *cr = c + r * ldc;
        for (int j = 0; j < nr; j += kLine) _mm_prefetch(reinterpret_cast<const char *>(cr + j), _MM_HINT_T0);
        // The row's last line, when C is not 64-byte aligned.
        _mm_prefetch(reinterpret_cast<const char *>(cr + nr - 1), _MM_HINT_T0);
    }
    V acc[MR][NV];
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[r][v] = X::zero();
    const T *arow[MR];
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) arow[r] = ap + (InPlace && r < mr ? r * lda : 0);
    for (int64_t p0 = 0; p0 < kc; p0 += kLine) {
        // In place, the next sliver's rows (the next MR rows of A) come from
        // memory: fetch them a tile ahead, a line of each row per block
        // (past A's end a prefetch is only a hint).
        if constexpr (InPlace)
#pragma GCC unroll 8
            for (int r = 0; r < MR; ++r)
                _mm_prefetch(reinterpret_cast<const char *>(reinterpret_cast<uintptr_t>(ap) +
                                                            uintptr_t((MR + r) * lda + p0) * sizeof(T)),
                             _MM_HINT_T0);
        const int64_t p1 = p0 + kLine < kc ? p0 + kLine : kc;
#pragma GCC unroll 4
        for (int64_t p = p0; p < p1; ++p) {
            const T *bq = bp + p * bstep;
            V b[NV];
#pragma GCC unroll 4
            for (int v = 0; v < NV; ++v) b[v] = X::load(bq + v * X::W);
#if ANYDNN_ISA_avx512
            // The B sliver (48 KB at kc = 256) streams from L2; fetching it 8
            // steps ahead hides the L2 latency (+10% on 1024^3 on Zen 4). On
            // AVX2 (Zen 3) the prefetches cost more issue slots than they
            // save: 8-17% faster without them, B in L1 or L2 alike.
#pragma GCC unroll 4
            for (int j = 0; j < NV * X::W; j += kLine)
                _mm_prefetch(reinterpret_cast<const char *>(bq + 8 * bstep + j), _MM_HINT_T0);
#endif
            // Steps: each step's values share a line with the next sliver's;
            // the lines 16 steps on are fetched (strided: the hardware follows
            // few such streams).
            if constexpr (Mode == TileA::steps)
                _mm_prefetch(reinterpret_cast<const char *>(reinterpret_cast<uintptr_t>(ap) +
                                                            uintptr_t((p + 16) * lda) * sizeof(T)),
                             _MM_HINT_T0);
#pragma GCC unroll 8
            for (int r = 0; r < MR; ++r) {
                const V a = X::set1(Mode == TileA::rows    ? arow[r][p]
                                    : Mode == TileA::steps ? ap[p * lda + (r < mr ? r : 0)]
                                                           : ap[p * MR + r]);
#pragma GCC unroll 4
                for (int v = 0; v < NV; ++v) acc[r][v] = X::fmadd(a, b[v], acc[r][v]);
            }
        }
    }
    if (mr == MR && nr == NV * X::W && o.alpha == T(1) && !o.load_c && o.row_bias == nullptr &&
        o.col_bias == nullptr) {
#pragma GCC unroll 8
        for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
            for (int v = 0; v < NV; ++v) X::store_part(c + r * ldc + v * X::W, acc[r][v], X::W);
        return;
    }
    const V alpha = X::set1(o.alpha), beta = X::set1(o.beta);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
        if (r >= mr) break;
        T *cr = c + r * ldc;
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) {
            const int lanes = nr - v * X::W;
            V x = X::mul(alpha, acc[r][v]);
            if (o.load_c) x = X::fmadd(beta, X::load_part(cr + v * X::W, lanes), x);
            if (o.row_bias != nullptr) x = X::add(x, X::set1(o.row_bias[r]));
            if (o.col_bias != nullptr) x = X::add(x, X::load_part(o.col_bias + v * X::W, lanes));
            X::store_part(cr + v * X::W, x, lanes);
        }
    }
}

// acc + a * b (b broadcast) in one rounding, as the few-rows path's
// X::fmadd: GCC contracts `acc += a * b` only from -O2 (the sanitizer build
// is -O1), and not under tunings that avoid FMA chains.
template <class A, class T>
inline A fmadd_bcast(A a, T b, A acc) {
    if constexpr (sizeof(A) == 16 && sizeof(T) == 4) return _mm_fmadd_ps(a, _mm_set1_ps(b), acc);
    else if constexpr (sizeof(A) == 16) return _mm_fmadd_pd(a, _mm_set1_pd(b), acc);
    else if constexpr (sizeof(A) == 32 && sizeof(T) == 4) return _mm256_fmadd_ps(a, _mm256_set1_ps(b), acc);
    else if constexpr (sizeof(A) == 32) return _mm256_fmadd_pd(a, _mm256_set1_pd(b), acc);
#if ANYDNN_ISA_avx512
    else if constexpr (sizeof(T) == 4) return _mm512_fmadd_ps(a, _mm512_set1_ps(b), acc);
    else return _mm512_fmadd_pd(a, _mm512_set1_pd(b), acc);
#endif
}

// The MR x NC tile for the last, narrow sliver of C (NC <= kColumnTileMax
// columns): each step's MR values of A are one vector (at a + p * a_step),
// each column's B value a broadcast, so a step costs NC FMAs where
// gemm_tile's 1-vector form spends MR on masked lanes (an image of 49
// pixels, channels first, is 48 + 1 columns: the 1 cost a third of the 48).
// Steps go round kColumnTileSums sets of accumulators (the last kc %
// kColumnTileSums into set 0), summed (0 + 1) + (2 + 3): so few chains would
// otherwise wait on the FMA latency. Every A mode reaches this order
// (VecTile::tile_nv), and so does the few-rows path over a packed B
// (SmallRows::narrow_sliver), so that an element's bits never depend on how
// A was read. The store is gemm_tile's, row by row.
template <class T, int MR, int NR, int NC>
[[gnu::noinline]] void gemm_column_tile(int64_t kc, const T *a, int64_t a_step, const T *bp, T *c, int64_t ldc,
                                        int mr, int nr, const TileOut<T> &o) {
    using X = Vec<T>;
    using V = typename X::V;
    using A [[gnu::vector_size(MR * sizeof(T))]] = T;
    constexpr int U = kColumnTileSums;
    static_assert(U == 4);
    A acc[U][NC] = {};
    int64_t p = 0;
    for (; p + U <= kc; p += U) {
#pragma GCC unroll 4
        for (int u = 0; u < U; ++u) {
            _mm_prefetch(reinterpret_cast<const char *>(bp + (p + u + 16) * NR), _MM_HINT_T0);
            const A av = load_vec<A>(a + (p + u) * a_step);
#pragma GCC unroll 4
            for (int j = 0; j < NC; ++j) acc[u][j] = fmadd_bcast(av, bp[(p + u) * NR + j], acc[u][j]);
        }
    }
    for (; p < kc; ++p) {
        const A av = load_vec<A>(a + p * a_step);
#pragma GCC unroll 4
        for (int j = 0; j < NC; ++j) acc[0][j] = fmadd_bcast(av, bp[p * NR + j], acc[0][j]);
    }
    A sum[NC];
    for (int j = 0; j < NC; ++j) sum[j] = (acc[0][j] + acc[1][j]) + (acc[2][j] + acc[3][j]);
    const V alpha = X::set1(o.alpha), beta = X::set1(o.beta);
    for (int r = 0; r < mr; ++r) {
        alignas(64) T row[X::W] = {};
        for (int j = 0; j < NC; ++j) row[j] = sum[j][r];
        T *cr = c + r * ldc;
        V x = X::mul(alpha, X::load_part(row, nr));
        if (o.load_c) x = X::fmadd(beta, X::load_part(cr, nr), x);
        if (o.row_bias != nullptr) x = X::add(x, X::set1(o.row_bias[r]));
        if (o.col_bias != nullptr) x = X::add(x, X::load_part(o.col_bias, nr));
        X::store_part(cr, x, nr);
    }
}

// MR rows x 3 vectors: the driver's microkernel type (util/gemm_driver.hpp).
template <class T, int MR_, int64_t MC_, int64_t KC_, int64_t NC_>
struct VecTile {
    using type = T;
    using SmallVec = Vec<T>;
    static constexpr int MR = MR_, NR = 3 * Vec<T>::W;
    static constexpr int64_t MC = MC_, KC = KC_, NC = NC_;

    template <int W>
    static void pack_rows(const T *const *rows, int64_t len, int lanes, T *d) {
        if constexpr (sizeof(T) == 4) f32_pack_rows<W>(rows, len, lanes, d);
        else pack_lanes_rows<W>(rows, len, lanes, d);
    }

    static void tile(int64_t kc, TileA mode, const T *ap, int64_t lda, const T *bp, int64_t bstep, T *c,
                     int64_t ldc, int mr, int nr, const TileOut<T> &o) {
        if (mode == TileA::rows) tile_nv<TileA::rows>(kc, ap, lda, bp, bstep, c, ldc, mr, nr, o);
        else if (mode == TileA::steps) tile_nv<TileA::steps>(kc, ap, lda, bp, bstep, c, ldc, mr, nr, o);
        else tile_nv<TileA::packed>(kc, ap, 0, bp, bstep, c, ldc, mr, nr, o);
    }

    // The narrow last sliver (gemm_column_tile) on A's step vectors: a
    // packed sliver's, or full steps' in place; rows in place (and a last
    // sliver's partial steps) packed here first, the gathers of 8 rows per
    // step having made mb1's 7x7 1x1 layers 1.5x slower.
    template <TileA Mode>
    static void column_tile(int64_t kc, const T *ap, int64_t lda, const T *bp, T *c, int64_t ldc, int mr, int nr,
                            const TileOut<T> &o) {
        static_assert(kColumnTileMax == 4 && KC_ * MR <= 4096);
        alignas(64) T sliver[KC_ * MR];
        const T *a = ap;
        int64_t step = MR;
        if (Mode == TileA::steps && mr == MR) {
            step = lda;
        } else if (Mode == TileA::rows) {
            pack_strided<VecTile, MR>(ap, lda, kc, mr, sliver);
            a = sliver;
        } else if (Mode == TileA::steps) {
            for (int64_t p = 0; p < kc; ++p)
                for (int r = 0; r < MR; ++r) sliver[p * MR + r] = ap[p * lda + (r < mr ? r : 0)];
            a = sliver;
        }
        switch (nr) {
        case 1: return gemm_column_tile<T, MR, NR, 1>(kc, a, step, bp, c, ldc, mr, nr, o);
        case 2: return gemm_column_tile<T, MR, NR, 2>(kc, a, step, bp, c, ldc, mr, nr, o);
        case 3: return gemm_column_tile<T, MR, NR, 3>(kc, a, step, bp, c, ldc, mr, nr, o);
        default: return gemm_column_tile<T, MR, NR, 4>(kc, a, step, bp, c, ldc, mr, nr, o);
        }
    }

    template <TileA Mode>
    static void tile_nv(int64_t kc, const T *ap, int64_t lda, const T *bp, int64_t bstep, T *c, int64_t ldc, int mr,
                        int nr, const TileOut<T> &o) {
        constexpr int w = Vec<T>::W;
        if (bstep != NR) return gemm_tile<T, MR, NR, 3, Mode, true>(kc, ap, lda, bp, bstep, c, ldc, mr, nr, o);
        if (nr <= kColumnTileMax) return column_tile<Mode>(kc, ap, lda, bp, c, ldc, mr, nr, o);
        if (nr > 2 * w) gemm_tile<T, MR, NR, 3, Mode>(kc, ap, lda, bp, bstep, c, ldc, mr, nr, o);
        else if (nr > w) gemm_tile<T, MR, NR, 2, Mode>(kc, ap, lda, bp, bstep, c, ldc, mr, nr, o);
        else gemm_tile<T, MR, NR, 1, Mode>(kc, ap, lda, bp, bstep, c, ldc, mr, nr, o);
    }
};

#if ANYDNN_ISA_avx512
// 8 rows x 3 zmm: 24 accumulators + 3 B vectors + 1 broadcast of the 32
// registers. One zmm FMA per cycle (Zen 4 double-pumps two 256-bit pipes;
// 4-cycle latency) needs only 4 independent chains, so the tile's size is
// set by load traffic: 3 vector loads and 8 broadcasts per 24 FMAs. 8 rows
// divide CNN channel counts (64, 256, 2048) where 14 or 12 rows would leave
// a partial sliver. kc = 256 keeps an A sliver in 8 KB of L1 and a 256 x 480
// B block in 480 KB of the 1 MiB L2.
using F32Tile = VecTile<float, 8, 1024, 256, 480>;    // 8 x 48
using F64Tile = VecTile<double, 8, 512, 128, 480>;    // 8 x 24
static_assert(F32Tile::NR <= kMaxGemmNr && F64Tile::NR <= kMaxGemmNr);
#else
// Haswell .. Zen 3: two ymm FMA pipes of 4-5 cycles latency want >= 10
// accumulators; 16 ymm registers hold 12 accumulators + 3 B + 1 broadcast.
using F32Tile = VecTile<float, 4, 1024, 256, 480>;    // 4 x 24
using F64Tile = VecTile<double, 4, 512, 256, 240>;    // 4 x 12
#endif

#else
// Baseline x86-64 (and any other CPU): 16 xmm registers hold 8 accumulators
// of 4 x 8 floats or 4 x 4 doubles.
using F32Tile = PortableTile<float, 4, 8, 512, 256, 512>;
using F64Tile = PortableTile<double, 4, 4, 256, 128, 256>;
#endif

}  // namespace

extern const GemmKernels<float> gemm_f32 = make_gemm_kernels<F32Tile>();
extern const GemmKernels<double> gemm_f64 = make_gemm_kernels<F64Tile>();

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
