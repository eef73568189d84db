// Blocked transposes for elementwise ops whose output runs cross the
// input's runs (NCHW <-> NHWC and any layout change whose innermost output
// dimension is not the input's). Walking the output's runs reads the input
// one element per cache line, and with power-of-two strides (an NCHW plane
// of 128x128 floats is 64 KiB) every line of a run falls in the same L1 set,
// so the lines are evicted before the next run reads their next element.
// Here a block of the input (its contiguous rows, one per output column) is
// transposed into an L1 buffer, tile by tile, so that every line is read
// whole once; the buffer then holds runs of the output in the input's type,
// which the op's ordinary contiguous path (conversion, blending, streaming
// stores) writes out (docs/ARCHITECTURE.md, "Transposes").
#pragma once

#include "cpu/kernels/util/common.hpp"

#if ANYDNN_ISA_avx512 || ANYDNN_ISA_avx2
#include <immintrin.h>
#endif

namespace anydnn::cpu::ANYDNN_ISA_NS {

// The elements are moved as bits of their size; may_alias, since they are
// the op's floats (or halves, or doubles) seen through another type.
typedef uint16_t __attribute__((may_alias)) Bits16;
typedef uint32_t __attribute__((may_alias)) Bits32;
typedef uint64_t __attribute__((may_alias)) Bits64;

// Elements per tile side: one vector of 4-byte elements.
#if ANYDNN_ISA_avx512
constexpr int64_t kTile = 16;
#else
constexpr int64_t kTile = 8;
#endif

#if ANYDNN_ISA_avx512
// GCC 12's shuffle, unpack and widening intrinsics pass an undefined
// vector, which it then reports as (maybe) used uninitialized (GCC bug
// 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// y_row(r)[c] = x[c * ldx + r] for r < tr, c < tc (at most 16), on
// 4-byte elements, or 2-byte ones widened to 4 bytes in the registers
// (moved as bits: no float operation touches them). Partial tiles are
// masked: masked-off elements are neither read nor written. stream: rows
// that are whole aligned cache lines (4-byte elements, tc 16) are written
// with streaming stores. Each output row goes where y_row puts it (rows
// ldy apart in transpose_tile; transpose_pixels_to_rows: wherever a
// pixel's row and column put it).
template <class E, class Row>
ANYDNN_ALWAYS_INLINE void transpose_tile_to(const E *x, int64_t ldx, Row &&y_row, int64_t tr, int64_t tc,
                                            bool stream) {
    const __mmask16 in = static_cast<__mmask16>((1u << tr) - 1), out = static_cast<__mmask16>((1u << tc) - 1);
    auto load = [&](const E *p) {
        if constexpr (sizeof(E) == 4) return _mm512_maskz_loadu_ps(in, p);
        else return _mm512_castsi512_ps(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(in, p)));
    };
    __m512 r[16], t[16];
    for (int i = 0; i < 16; ++i) r[i] = i < tc ? load(x + i * ldx) : _mm512_setzero_ps();
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    // r[4i + k], 128-bit lane l: element 4l + k of rows 4i .. 4i + 3.
    for (int i = 0; i < 16; i += 4)
        for (int k = 0; k < 2; ++k) {
            const __m512d a = _mm512_castps_pd(t[i + k]), b = _mm512_castps_pd(t[i + k + 2]);
            r[i + 2 * k] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
            r[i + 2 * k + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
        }
    // Gather lane l of r[k], r[4 + k], r[8 + k], r[12 + k] into output row 4l + k.
    for (int k = 0; k < 4; ++k) {
        t[k] = _mm512_shuffle_f32x4(r[k], r[4 + k], 0x88);
        t[4 + k] = _mm512_shuffle_f32x4(r[k], r[4 + k], 0xdd);
        t[8 + k] = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], 0x88);
        t[12 + k] = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], 0xdd);
    }
    for (int k = 0; k < 4; ++k) {
        r[k] = _mm512_shuffle_f32x4(t[k], t[8 + k], 0x88);
        r[8 + k] = _mm512_shuffle_f32x4(t[k], t[8 + k], 0xdd);
        r[4 + k] = _mm512_shuffle_f32x4(t[4 + k], t[12 + k], 0x88);
        r[12 + k] = _mm512_shuffle_f32x4(t[4 + k], t[12 + k], 0xdd);
    }
    if constexpr (sizeof(E) == 4) {
        if (stream && tc == 16) {
            for (int i = 0; i < tr; ++i) _mm512_stream_ps(reinterpret_cast<float *>(y_row(i)), r[i]);
            return;
        }
    }
    for (int i = 0; i < tr; ++i) {
        if constexpr (sizeof(E) == 4) _mm512_mask_storeu_ps(y_row(i), out, r[i]);
        else _mm256_mask_storeu_epi16(y_row(i), out, _mm512_cvtepi32_epi16(_mm512_castps_si512(r[i])));
    }
}

template <class E>
inline void transpose_tile(const E *x, int64_t ldx, E *y, int64_t ldy, int64_t tr, int64_t tc, bool stream) {
    stream = stream && reinterpret_cast<uintptr_t>(y) % 64 == 0 && ldy % 16 == 0;
    transpose_tile_to(x, ldx, [&](int i) { return y + i * ldy; }, tr, tc, stream);
}
#pragma GCC diagnostic pop
#elif ANYDNN_ISA_avx2
// The same on 8 x 8 elements.
inline void transpose_tile(const Bits32 *x, int64_t ldx, Bits32 *y, int64_t ldy) {
    __m256 r[8], t[8];
    for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(reinterpret_cast<const float *>(x + i * ldx));
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    // r[4i + k], 128-bit lane l: element 4l + k of rows 4i .. 4i + 3.
    for (int i = 0; i < 8; i += 4)
        for (int k = 0; k < 2; ++k) {
            const __m256d a = _mm256_castps_pd(t[i + k]), b = _mm256_castps_pd(t[i + k + 2]);
            r[i + 2 * k] = _mm256_castpd_ps(_mm256_unpacklo_pd(a, b));
            r[i + 2 * k + 1] = _mm256_castpd_ps(_mm256_unpackhi_pd(a, b));
        }
    for (int k = 0; k < 4; ++k) {
        _mm256_storeu_ps(reinterpret_cast<float *>(y + k * ldy), _mm256_permute2f128_ps(r[k], r[4 + k], 0x20));
        _mm256_storeu_ps(reinterpret_cast<float *>(y + (4 + k) * ldy), _mm256_permute2f128_ps(r[k], r[4 + k], 0x31));
    }
}
#endif

// y[r * ldy + c] = x[c * ldx + r] for r < rows, c < cols, on elements of
// E's size. Tiles of 4-byte elements (and 2-byte ones on AVX-512) go through
// vector registers (on AVX2 whole tiles only); the rest (and the generic
// level) are plain loops over a tile, which stay within a few cache lines on
// each side.
// stream: as transpose_tile (AVX-512; kTransposeStreams).
template <class E>
[[gnu::noinline]] void transpose_block(const void *xv, int64_t ldx, void *yv, int64_t ldy, int64_t rows,
                                       int64_t cols, bool stream) {
    const E *x = static_cast<const E *>(xv);
    E *y = static_cast<E *>(yv);
    for (int64_t r = 0; r < rows; r += kTile)
        for (int64_t c = 0; c < cols; c += kTile) {
            const E *xt = x + c * ldx + r;
            E *yt = y + r * ldy + c;
            const int64_t tr = imin_(kTile, rows - r), tc = imin_(kTile, cols - c);
#if ANYDNN_ISA_avx512
            if constexpr (sizeof(E) == 4 || sizeof(E) == 2) {
                transpose_tile(xt, ldx, yt, ldy, tr, tc, stream);
                continue;
            }
#elif ANYDNN_ISA_avx2
            if constexpr (sizeof(E) == 4) {
                if (tr == kTile && tc == kTile) {
                    transpose_tile(xt, ldx, yt, ldy);
                    continue;
                }
            }
#endif
            for (int64_t i = 0; i < tr; ++i)
                for (int64_t j = 0; j < tc; ++j) yt[i * ldy + j] = xt[j * ldx + i];
        }
}

// Bytes of the L1 buffer a block is transposed into.
constexpr int64_t kTransposeBytes = 16384;

// Rows and columns a block needs at least on a side for its segments there
// to be whole cache lines and long enough for the prefetchers: 256 bytes of
// f32.
constexpr int64_t kTransposeSide = 64;

// How a StridedLoop (operand 0 = y, 1 = x) splits into transposes: y's
// innermost dimension (cols, contiguous in y) steps x by ldx, and dimension
// j (rows, contiguous in x) steps y by ldy. Each outer index (the other
// dimensions) is cut into blocks of `strip` rows by `width` columns; an
// item is one block.
struct TransposePlan {
    int j = -1;  // -1: not a transpose
    int64_t rows = 0, cols = 0, ldx = 0, ldy = 0;
    int64_t strip = 0, width = 0, strips = 0, widths = 0, items = 0;
};

// x's element size decides the block: its buffer holds strip x width
// elements. A block is about square (kTransposeSide on each side) unless
// one side is short, when the other takes the rest of the buffer: C = 3
// moves 3 x 1360 blocks, not 3 x 64.
inline TransposePlan plan_transpose(const StridedLoop &L, int64_t xsize) {
    TransposePlan p;
    const int in = L.nd - 1;
    if (L.nd < 2 || L.strides[0][in] != 1 || L.strides[1][in] == 1 || L.strides[1][in] == 0) return p;
    for (int d = L.nd - 2; d >= 0 && p.j < 0; --d)
        if (L.strides[1][d] == 1) p.j = d;
    if (p.j < 0) return p;
    p.rows = L.dims[p.j], p.cols = L.inner();
    p.ldx = L.strides[1][in], p.ldy = L.strides[0][p.j];
    const int64_t elems = kTransposeBytes / xsize;
    // Parts of a side shorter than the whole are whole tiles.
    auto side = [](int64_t want, int64_t all) { return want >= all ? all : want / kTile * kTile; };
    p.width = side(elems / imin_(p.rows, kTransposeSide), p.cols);
    p.strip = side(elems / p.width, p.rows);
    p.strips = (p.rows + p.strip - 1) / p.strip;
    p.widths = (p.cols + p.width - 1) / p.width;
    p.items = L.total() / (p.rows * p.cols) * p.strips * p.widths;
    return p;
}

// Whether transpose_block streams its whole aligned rows of 4-byte elements
// when asked: only AVX-512's 16 x 16 tiles write whole cache lines.
#if ANYDNN_ISA_avx512
constexpr bool kTransposeStreams = true;
#else
constexpr bool kTransposeStreams = false;
#endif

// rows x cols elements of `size` bytes: y[r * ldy + c] = x[c * ldx + r].
inline void transpose_elements(int64_t size, const void *x, int64_t ldx, void *y, int64_t ldy, int64_t rows,
                               int64_t cols, bool stream = false) {
    switch (size) {
    case 1: return transpose_block<uint8_t>(x, ldx, y, ldy, rows, cols, stream);
    case 2: return transpose_block<Bits16>(x, ldx, y, ldy, rows, cols, stream);
    case 4: return transpose_block<Bits32>(x, ldx, y, ldy, rows, cols, stream);
    default: return transpose_block<Bits64>(x, ldx, y, ldy, rows, cols, stream);
    }
}

// cb channel planes of x (channel c at x + c * ldx, its rows x_row pixels
// apart) channels last into `rows` rows of y (y_row elements apart): pixel
// w of row r (w < width) to y + r * y_row + w * lanes, its channels
// contiguous. Where the rows are whole (width == x_row) and not a multiple
// of the tile, AVX-512 transposes 16 pixels at a time whatever rows they
// span, each pixel stored to its own place: a 7-pixel row alone fills 7 of
// a tile's 16 rows (MobileNet-v2's b15_dw channels first took 7 input tiles
// per block of channels where 4 do: 18% of its time; b14_dw_s2 10%);
// otherwise, and on the other levels, a row at a time.
template <class C>
void transpose_pixels_to_rows(const C *x, int64_t ldx, int64_t x_row, int64_t rows, int64_t width, int64_t cb, C *y,
                              int64_t y_row, int64_t lanes) {
#if ANYDNN_ISA_avx512
    if constexpr (sizeof(C) == 4) {
        if (width == x_row && width % kTile != 0) {
            const Bits32 *xb = reinterpret_cast<const Bits32 *>(x);
            Bits32 *yb = reinterpret_cast<Bits32 *>(y);
            const int64_t n = rows * width;
            Bits32 *at = yb;  // pixel p0's place
            for (int64_t p0 = 0, w0 = 0; p0 < n; p0 += kTile) {
                const int64_t tr = imin_(kTile, n - p0);
                Bits32 *dst[kTile];
                for (int64_t i = 0; i < tr; ++i) {
                    dst[i] = at;
                    at += lanes;
                    if (++w0 == width) w0 = 0, at += y_row - width * lanes;
                }
                for (int64_t c0 = 0; c0 < cb; c0 += kTile)
                    transpose_tile_to(xb + c0 * ldx + p0, ldx, [&](int i) { return dst[i] + c0; }, tr,
                                      imin_(kTile, cb - c0), false);
            }
            return;
        }
    }
#endif
    for (int64_t r = 0; r < rows; ++r)
        transpose_elements(sizeof(C), x + r * x_row, ldx, y + r * y_row, lanes, width, cb);
}

// Moves the items [begin, end) of p. direct (x and y of one type, a plain
// copy): each block is transposed straight into y, with streaming stores
// when stream (kTransposeStreams). Otherwise it goes to the buffer, and
// emit(xrun, yrun, n) is called for its y runs: xrun holds n elements of
// x's type, contiguous, for the n contiguous elements of y at yrun (byte
// pointers); a block whose rows follow each other in y is one run.
template <class Emit>
void for_each_transposed_run(const StridedLoop &L, const TransposePlan &p, int64_t xsize, int64_t ysize,
                             const void *x, void *y, int64_t begin, int64_t end, bool direct, bool stream,
                             Emit &&emit) {
    alignas(64) unsigned char buf[kTransposeBytes];
    struct Block {
        int64_t nr, w, xo, yo;  // rows, columns, offsets of x and y (elements)
    };
    const auto block = [&](int64_t item) {
        const int64_t c0 = item % p.widths * p.width, r0 = item / p.widths % p.strips * p.strip;
        int64_t outer = item / p.widths / p.strips, xo = 0, yo = 0;
        for (int d = L.nd - 2; d >= 0; --d) {
            if (d == p.j) continue;
            xo += outer % L.dims[d] * L.strides[1][d];
            yo += outer % L.dims[d] * L.strides[0][d];
            outer /= L.dims[d];
        }
        return Block{imin_(p.strip, p.rows - r0), imin_(p.width, p.cols - c0), xo + r0 + c0 * p.ldx,
                     yo + r0 * p.ldy + c0};
    };
    for (int64_t item = begin; item < end; ++item) {
        const auto [nr, w, xo, yo] = block(item);
        const char *xb = static_cast<const char *>(x) + xo * xsize;
        char *yb = static_cast<char *>(y) + yo * ysize;
        if (item + 1 < end) {
            // The next block's x runs (w of them, strided by ldx: too many
            // streams for the hardware prefetchers, and more misses than a
            // core keeps in flight when the block is read) into L2 now.
            const Block next = block(item + 1);
            const uintptr_t xn = reinterpret_cast<uintptr_t>(x) + uintptr_t(next.xo * xsize);
            for (int64_t c = 0; c < next.w; ++c)
                for (int64_t b = 0; b < next.nr * xsize; b += 64)
                    __builtin_prefetch(reinterpret_cast<const char *>(xn + uintptr_t((c * p.ldx) * xsize + b)), 0, 2);
        }
        if (direct) {
            transpose_elements(xsize, xb, p.ldx, yb, p.ldy, nr, w, stream);
            continue;
        }
        transpose_elements(xsize, xb, p.ldx, buf, w, nr, w);
        if (w == p.cols && p.ldy == p.cols) {
            emit(buf, yb, nr * w);
            continue;
        }
        for (int64_t i = 0; i < nr; ++i) emit(buf + i * w * xsize, yb + i * p.ldy * ysize, w);
    }
}

// row[2j] = even[j], row[2j + 1] = odd[j] for j in [0, n), n a multiple of
// the vector width; a null source reads as zeros. Two shuffles per pair of
// vectors (vpermt2ps on AVX-512): the strided scalar stores this replaces
// were half of a stride-2 1x1 layer's backward data, channels first.
template <class C>
void interleave_pair(const C *even, const C *odd, int64_t n, C *row) {
    using V = vec_t<C>;
    constexpr int W = sizeof(V) / sizeof(C);
    vec_t<std::conditional_t<sizeof(C) == 4, int32_t, int64_t>> lo, hi;
    for (int i = 0; i < W; ++i) {
        lo[i] = i / 2 + (i % 2) * W;
        hi[i] = W / 2 + i / 2 + (i % 2) * W;
    }
    const V zero{};
    for (int64_t j = 0; j < n; j += W) {
        const V e = even != nullptr ? load_vec<V>(even + j) : zero;
        const V o = odd != nullptr ? load_vec<V>(odd + j) : zero;
        store_vec(row + 2 * j, __builtin_shuffle(e, o, lo));
        store_vec(row + 2 * j + W, __builtin_shuffle(e, o, hi));
    }
}

// The inverse: even[j] = row[2j], odd[j] = row[2j + 1] for j in [0, n),
// any n (a stride-2 first layer's input rows split by column phase).
template <class C>
void deinterleave_pair(const C *row, int64_t n, C *even, C *odd) {
    using V = vec_t<C>;
    constexpr int W = sizeof(V) / sizeof(C);
    vec_t<std::conditional_t<sizeof(C) == 4, int32_t, int64_t>> e, o;
    for (int i = 0; i < W; ++i) {
        e[i] = 2 * i;
        o[i] = 2 * i + 1;
    }
    int64_t j = 0;
    for (; j + W <= n; j += W) {
        const V a = load_vec<V>(row + 2 * j), b = load_vec<V>(row + 2 * j + W);
        store_vec(even + j, __builtin_shuffle(a, b, e));
        store_vec(odd + j, __builtin_shuffle(a, b, o));
    }
    for (; j < n; ++j) {
        even[j] = row[2 * j];
        odd[j] = row[2 * j + 1];
    }
}

// run() on channels-last copies of n images of a packed channels-first
// input (in_c channels of in_p pixels) and output (out_c x out_p): the
// input transposed into in_t, the output into out_t too when `blend`
// (run reads it), and out_t transposed back into out after run; an image
// per item.
template <class T, class Run>
void with_channels_last_copies(const ExecContext &ctx, int64_t n, const T *in, int64_t in_c, int64_t in_p, T *out,
                               int64_t out_c, int64_t out_p, bool blend, T *in_t, T *out_t, Run &&run) {
    parallel_ranges(ctx, n, 1, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
            transpose_elements(sizeof(T), in + i * in_c * in_p, in_p, in_t + i * in_p * in_c, in_c, in_p, in_c);
            if (blend)
                transpose_elements(sizeof(T), out + i * out_c * out_p, out_p, out_t + i * out_p * out_c, out_c, out_p,
                                   out_c);
        }
    });
    run();
    parallel_ranges(ctx, n, 1, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i)
            transpose_elements(sizeof(T), out_t + i * out_p * out_c, out_c, out + i * out_c * out_p, out_p, out_c,
                               out_p);
    });
}

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
