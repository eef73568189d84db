#include "cpu/conv_exec.hpp"

#include <algorithm>
#include <limits>

#include "core/dtype.hpp"
#include "cpu/conv_unfold.hpp"
#include "cpu/gemm.hpp"

namespace anydnn::cpu {

namespace {

constexpr std::size_t round64(std::size_t b) { return (b + 63) & ~std::size_t{63}; }

template <class T>
int64_t packed_filter_elems(Isa isa, bool filter_is_b, int64_t width, int64_t k_total) {
    const GemmKernels<T> &k = gemm_kernels<T>(isa);
    return static_cast<int64_t>((filter_is_b ? k.packed_b_size : k.packed_a_size)(width, k_total) / sizeof(T));
}

}  // namespace

int64_t conv_packed_filter_elems(Isa isa, anydnnDataType_t compute, bool filter_is_b, int64_t width,
                                 int64_t k_total) {
    return compute == ANYDNN_DATA_DOUBLE ? packed_filter_elems<double>(isa, filter_is_b, width, k_total)
                                         : packed_filter_elems<float>(isa, filter_is_b, width, k_total);
}

bool conv_packed_spatial(const int64_t *ext, const int64_t *s, int64_t inner) {
    int64_t expected = inner;
    for (int d = 2; d >= 0; --d) {
        if (ext[d] > 1 && s[2 + d] != expected) return false;
        expected *= ext[d];
    }
    return true;
}

namespace {

bool is_depthwise(const ops::ConvGeometry &g) { return g.icg == 1; }

// Channels last (C[pixel][oc] = X W^T) when x's channels are its innermost
// dimension; with one input channel, y decides.
bool channels_last_orientation(const ops::ConvGeometry &g) {
    if (g.groups * g.icg > 1) return g.xs[1] == 1;
    return g.groups * g.ocg > 1 && g.ys[1] == 1;
}

}  // namespace

ops::ConvGeometry conv_gemm_geometry(const ops::ConvGeometry &g) {
    if (g.groups != 1 || g.flip) return g;
    for (int d = 0; d < 3; ++d)
        if (g.out[d] != 1 || g.pad[d] != 0 || g.in[d] != g.k[d]) return g;
    // x's (c, d, h, w) strides are w's and make a packed block.
    const int64_t ext[4] = {g.icg, g.in[0], g.in[1], g.in[2]};
    std::pair<int64_t, int64_t> dims[4];  // (stride, extent) of the dimensions longer than 1
    int count = 0;
    for (int i = 0; i < 4; ++i) {
        if (ext[i] == 1) continue;
        if (g.xs[1 + i] != g.ws[1 + i]) return g;
        dims[count++] = {g.xs[1 + i], ext[i]};
    }
    for (int i = 1; i < count; ++i)  // insertion sort by stride (std::sort draws a false -Warray-bounds)
        for (int j = i; j > 0 && dims[j].first < dims[j - 1].first; --j) std::swap(dims[j], dims[j - 1]);
    int64_t expected = 1;
    for (int i = 0; i < count; ++i) {
        if (dims[i].first != expected) return g;
        expected *= dims[i].second;
    }
    ops::ConvGeometry f = g;
    f.n = 1;
    f.icg = g.icg * g.taps();
    for (int d = 0; d < 3; ++d) {
        f.in[d] = f.out[d] = f.k[d] = f.stride[d] = f.dil[d] = 1;
        f.pad[d] = 0;
    }
    f.in[2] = f.out[2] = g.n;
    const int64_t xs0 = g.xs[0], ys0 = g.ys[0], ws0 = g.ws[0], ys1 = g.ys[1];
    for (int i = 0; i < 5; ++i) f.xs[i] = f.ws[i] = f.ys[i] = 0;
    f.xs[0] = xs0 * g.n, f.xs[1] = 1, f.xs[4] = xs0;
    f.ws[0] = ws0, f.ws[1] = 1;
    f.ys[0] = ys0 * g.n, f.ys[1] = ys1, f.ys[4] = ys0;
    return f;
}

// Channels first on images of at most kCopiesMaxPixels output pixels, with
// several taps: the GEMMs had a row of the planes' pixels as their columns
// (a 7x7 output: 48 + 7 + junk), channels last they are their rows (7
// tiles of 8). Backward data: ResNet-50's res5a_branch2b at mb16 22.7 ->
// 18.2 ms (16.0 channels last natively: the rest is the copies and the KCRS
// filter's reorder); forward: res5bc_branch2b at mb1 6.4 -> 3.8-4.1 ms (NHWC
// 2.0-2.6: the KCRS filter's reorder again).
constexpr int64_t kCopiesMaxPixels = 64;

std::optional<ops::ConvGeometry> conv_channels_last_copies(const ops::ConvGeometry &g) {
    const int64_t ic = g.groups * g.icg, oc = g.groups * g.ocg, ip = g.in_pixels(), op = g.out_pixels();
    const bool packed = g.xs[4] == 1 && conv_packed_spatial(g.in, g.xs, 1) && g.xs[1] == ip && g.xs[0] == ic * ip &&
                        g.ys[4] == 1 && conv_packed_spatial(g.out, g.ys, 1) && g.ys[1] == op && g.ys[0] == oc * op;
    if (!packed || ic == 1 || oc == 1 || g.taps() == 1 || op > kCopiesMaxPixels || g.dt != g.compute)
        return std::nullopt;
    ops::ConvGeometry q = g;
    q.xs[0] = ip * ic, q.xs[1] = 1, q.xs[2] = g.in[1] * g.in[2] * ic, q.xs[3] = g.in[2] * ic, q.xs[4] = ic;
    q.ys[0] = op * oc, q.ys[1] = 1, q.ys[2] = g.out[1] * g.out[2] * oc, q.ys[3] = g.out[2] * oc, q.ys[4] = oc;
    return q;
}

Status plan_conv_planes(const ops::ConvGeometry &g, ConvPrecompPlan *out) {
    if (g.taps() > kConvMaxTaps)
        return fail(ANYDNN_STATUS_NOT_SUPPORTED,
                    "the GEMM algorithms take filters of up to %d taps, this one has %lld (the direct loops, IMPLICIT_GEMM "
                    "and ALGO_0, take it)",
                    kConvMaxTaps, static_cast<long long>(g.taps()));
    for (int d = 0; d < 3; ++d)
        if (g.stride[d] > kConvMaxStride)
            return fail(ANYDNN_STATUS_NOT_SUPPORTED,
                        "the GEMM algorithms take strides of up to %d, this one is %lld (the direct loops, "
                        "IMPLICIT_GEMM and ALGO_0, take it)",
                        kConvMaxStride, static_cast<long long>(g.stride[d]));
    ConvPrecompPlan &pl = *out;
    pl = ConvPrecompPlan{};
    const bool same_type = g.dt == g.compute;
    const int64_t ic = g.groups * g.icg;
    pl.channels_last = channels_last_orientation(g);
    pl.filter_a = !pl.channels_last;

    // Planes, residues and taps.
    pl.phases = 1;
    for (int d = 0; d < 3; ++d) {
        pl.L[d] = g.out[d] + (g.k[d] - 1) * g.dil[d] / g.stride[d];
        bool seen[kConvMaxStride] = {};
        int64_t count = 0;
        for (int64_t k = 0; k < g.k[d]; ++k) {
            const int64_t a = k * g.dil[d] % g.stride[d];
            if (seen[a]) continue;
            seen[a] = true;
            pl.residue_of[d][a] = count;
            pl.residue_value[d][count++] = a;
        }
        pl.residues[d] = count;
        pl.phases *= count;
    }
    pl.plane_pixels = pl.L[0] * pl.L[1] * pl.L[2];
    pl.taps = g.taps();
    for (int64_t kd = 0, t = 0; kd < g.k[0]; ++kd)
        for (int64_t kh = 0; kh < g.k[1]; ++kh)
            for (int64_t kw = 0; kw < g.k[2]; ++kw, ++t) {
                const int64_t ud = kd * g.dil[0], uh = kh * g.dil[1], uw = kw * g.dil[2];
                pl.tap_phase[t] = (pl.residue_of[0][ud % g.stride[0]] * pl.residues[1] +
                                   pl.residue_of[1][uh % g.stride[1]]) * pl.residues[2] +
                                  pl.residue_of[2][uw % g.stride[2]];
                pl.tap_pixel[t] = (ud / g.stride[0] * pl.L[1] + uh / g.stride[1]) * pl.L[2] + uw / g.stride[2];
                pl.tap_w[t] = g.filter_offset(kd, kh, kw);
            }

    // x in place when the planes would be a copy of it.
    const bool unit = g.stride[0] == 1 && g.stride[1] == 1 && g.stride[2] == 1 && g.pad[0] == 0 && g.pad[1] == 0 &&
                      g.pad[2] == 0;
    if (unit && same_type) {
        if (pl.channels_last && g.xs[1] == 1 && g.xs[4] >= ic && conv_packed_spatial(g.in, g.xs, g.xs[4])) {
            pl.x_direct = true;
            pl.pix_stride = g.xs[4];
            pl.chan_stride = 1;
        } else if (!pl.channels_last && g.xs[4] == 1 && g.xs[1] >= pl.plane_pixels && conv_packed_spatial(g.in, g.xs, 1)) {
            pl.x_direct = true;
            pl.pix_stride = 1;
            pl.chan_stride = g.xs[1];
        }
    }
    if (!pl.x_direct) {
        if (pl.channels_last) {
            pl.pix_stride = ic;
            pl.chan_stride = 1;
            pl.phase_stride = pl.plane_pixels * ic;
        } else {
            pl.pix_stride = 1;
            pl.phase_stride = pl.plane_pixels;
            pl.chan_stride = pl.phases * pl.plane_pixels;
        }
        pl.image_elems = pl.phases * pl.plane_pixels * ic;
    }

    // (With one input channel per group, the C stride is never used.)
    pl.w_direct = same_type && (g.ws[1] == 1 || g.icg == 1) && g.ws[0] >= g.icg;
    pl.w_ld = pl.w_direct ? g.ws[0] : g.icg;
    pl.wr_elems = pl.w_direct ? 0 : g.groups * pl.taps * g.ocg * g.icg;

    pl.m_virtual = ((g.out[0] - 1) * pl.L[1] + (g.out[1] - 1)) * pl.L[2] + g.out[2];
    return kSuccess;
}

namespace {

// The forward's im2col path (ConvPrecompPlan::im2col_cols): a strided first
// layer channels last. Its taps reduce over C = 3 each: as a batch-reduce
// over planes (unfolded along w, conv_unfold.hpp) they are short products
// whose A is packed per block; as one GEMM of k = C * taps over a gathered
// chunk, ResNet-50's conv1 takes 10% less time (mb16: 26.9 -> 24.2 ms, 2
// threads, Intel Xeon) and MobileNet-v2's 13% less. With stride 1 the
// unfolded planes are x' itself and win (VGG-16's conv1_1 took 12% longer
// gathered).
bool forward_im2col(const ops::ConvGeometry &g) {
    return g.groups == 1 && channels_last_orientation(g) && g.icg < 16 && g.taps() > 1 &&
           (g.stride[0] > 1 || g.stride[1] > 1 || g.stride[2] > 1) && g.icg * g.k[2] <= kConvIm2colRowCols &&
           g.icg * g.taps() <= kConvIm2colMaxCols;
}

// Channels last with the filter as A (ConvPrecompPlan::filter_a): one
// small image under a large filter of several taps, one group, the taps
// side by side so that the GEMM reads the filter in place (KRSC in the
// compute type, cross-correlation; a filter reordered anyway, KCRS or
// f16/bf16, is reordered so: wr_taps_inner). The channels-last product
// packs both operands at every call, the whole filter among them (res5's
// 3x3 filter, 9.4 MB, against 49 pixels: written and read once more); this
// one packs only x's planes (as B, once per thread that splits the
// filter's rows) and y comes through the scratch. With more images the
// packed filter serves them all, and with one tap (1x1) x is read in
// place: the channels-last product stays (a 1x1 layer with a short
// reduction, MobileNet-v2's b15_expand, took 1.6x as long this way, the
// scratch's strided stores to y). The line, output channels >=
// kFilterAChannelsPerPixel x the planes' pixels, does not depend on the
// thread count: the two products round some elements differently (the
// GEMM's narrow last sliver, alpha and beta in the GEMM or the epilogue),
// and a result's bits must not depend on the threads.
constexpr int64_t kFilterAChannelsPerPixel = 2;
bool forward_filter_a(const ops::ConvGeometry &g, const ConvPrecompPlan &pl) {
    if (!pl.channels_last || pl.im2col_cols > 0 || g.n != 1 || g.groups != 1 || g.icg < 2 || pl.taps < 2)
        return false;
    if (pl.w_direct && !g.taps_at(g.icg)) return false;
    return g.ocg >= kFilterAChannelsPerPixel * pl.m_virtual;
}

// One small image (ConvPrecompPlan::b_gather): x's pixels gathered into the
// GEMM's packed B in the order of the filter's reduction, the filter read
// in place as A: KRSC (taps outer) channels last, KCRS (channels outer)
// channels first, in the compute type, cross-correlation. On 7 x 7 and 14 x
// 14 images the planes' junk pixels were a fifth of the work (a 9-wide
// plane for 7 pixels), and channels first the KCRS filter's reorder a
// third of ResNet-50's res5bc_branch2b (9.4 MB gathered nine floats apart);
// the GEMM's columns are now exactly y's pixels, and channels first the
// GEMM writes y. Channels last the output channels must be at least the
// pixels: else the channels-last product, which reads x's planes in place
// and writes y directly, wins (ResNet-50's res3a_branch2b, 128 channels on
// 28 x 28, 1.19 -> 1.48 ms gathered; res4a_branch2b, 256 on 14 x 14, 1.47
// -> 1.33; 2 threads, Zen 4); channels first the gathered product was as
// fast or faster on every ResNet-50 layer it takes. Up to kGatherMaxPixels
// output pixels (the packed B is pixels x C x taps).
constexpr int64_t kGatherMaxPixels = 1024;
bool forward_b_gather(const ops::ConvGeometry &g) {
    if (g.n != 1 || g.groups != 1 || g.icg < 2 || g.taps() < 2 || g.dt != g.compute || forward_im2col(g) ||
        g.out_pixels() > kGatherMaxPixels)
        return false;
    const bool channels_last = channels_last_orientation(g);
    const int64_t tap_step = channels_last ? g.icg : 1, chan_step = channels_last ? 1 : g.taps();
    if (g.ws[1] != chan_step || g.ws[0] < g.icg * g.taps() || !g.taps_at(tap_step)) return false;
    return !channels_last || g.ocg >= g.out_pixels();
}

// Few output pixels under a large filter (ConvPrecompPlan::pixel_dots): one
// group, float, each output channel's filter one contiguous reduction of
// taps x C: KRSC's (tap, channel) or KCRS's (channel, tap) order (1x1:
// both), cross-correlation; any layout of x and y, any stride, dilation
// and padding. The line depends on the shape only, never on the threads
// (the dot products and the GEMM round differently). AVX-512 only: with
// AVX2's 16 registers (a 3 x 3 tile, 6 loads per 9 FMAs, and folds over 8
// lanes) res5bc_branch2b took 26% longer than the GEMM, res5bc_branch2a
// 19% (one thread, Zen 4 held to AVX2).
bool forward_pixel_dots(const ops::ConvGeometry &g, Isa isa) {
    if (isa != Isa::avx512 || g.groups != 1 || g.dt != ANYDNN_DATA_FLOAT || g.compute != ANYDNN_DATA_FLOAT ||
        g.n * g.out_pixels() > kPixelDotsMaxPixels || g.icg * g.taps() < kPixelDotsMinReduction ||
        g.ws[0] < g.icg * g.taps())
        return false;
    return (g.ws[1] == 1 && g.taps_at(g.icg)) || (g.ws[1] == g.taps() && g.taps_at(1));
}

// Rows of an im2col chunk: its matrix in about 256 KiB of L2.
constexpr int64_t kIm2colChunkBytes = 256 << 10;

Status plan_precomp(const Handle &h, const ops::ConvForwardProblem &p, ConvPrecompPlan *out) {
    const ops::ConvGeometry &g = p.geo;
    ANYDNN_TRY(plan_conv_planes(g, out));
    ConvPrecompPlan &pl = *out;
    if (forward_pixel_dots(g, h.isa)) {
        constexpr int64_t W = 16;  // the vector
        pl.pixel_dots = true;
        pl.m_virtual = g.out_pixels();
        pl.dots_taps_inner = g.taps() > 1 && g.ws[1] != 1;
        const int64_t k_total = g.icg * g.taps();
        const bool rows = g.taps() == 1 && g.xs[1] == 1 && g.icg % W == 0 && g.xs[4] % 256 != 0 &&
                          (g.n == 1 || g.xs[0] == g.in_pixels() * g.xs[4]) &&
                          conv_packed_spatial(g.in, g.xs, g.xs[4]);
        const int64_t m = g.n * pl.m_virtual;
        const std::size_t sums = round64(static_cast<std::size_t>(m * g.ocg) * sizeof(float));
        pl.workers = std::clamp(h.threads(), 1, 64);
        // x itself where its pixels are the rows (channels last, stride 1,
        // no padding, images and pixels one stride apart) and those hold
        // whole vectors and are not 1 KiB-aligned (below): the copy was a
        // tenth of MobileNet-v2's b14_project on 2 threads.
        if (rows && g.in_pixels() == g.out_pixels() && g.pad[0] + g.pad[1] + g.pad[2] == 0) {
            pl.x_direct = true;
            pl.dots_ld = g.xs[4];
            pl.workspace_bytes = 64 + sums;
            return kSuccess;
        }
        // Else copies, a vector longer than the reduction rounded up to it
        // where that is a multiple of 256 floats: rows 1 KiB apart fall in
        // the same L1 sets (res5bc_branch2a's 8 KiB rows ran at 75% of the
        // speed they reach offset, standalone). A copy per thread: the rows
        // one thread wrote and the other read crossed between the cores
        // (MobileNet-v2's b14_project channels first took 1.6x as long on 2
        // threads as with its own copy each).
        pl.x_direct = false;
        pl.dots_ld = (k_total + W - 1) / W * W;
        if (pl.dots_ld % 256 == 0) pl.dots_ld += W;
        pl.workspace_bytes =
            64 + round64(static_cast<std::size_t>(pl.workers * m * pl.dots_ld) * sizeof(float)) + sums;
        return kSuccess;
    }
    if (forward_im2col(g)) {
        pl.im2col_cols = g.icg * g.taps();
        pl.im2col_ld = (pl.im2col_cols + 15) / 16 * 16;
        for (int d = 0; d < 3; ++d) pl.L[d] = g.out[d];
        pl.plane_pixels = pl.m_virtual = g.out_pixels();
        pl.x_direct = false;
        pl.image_elems = 0;
    }
    const bool same_type = g.dt == g.compute;
    const int64_t oc = g.groups * g.ocg;
    const std::size_t esize = dtype_size(g.compute);
    if (forward_b_gather(g)) {
        pl.filter_a = pl.b_gather = true;
        pl.wr_elems = 0;
        pl.w_ld = g.ws[0];
        pl.m_virtual = g.out_pixels();
    } else if (forward_filter_a(g, pl)) {
        pl.filter_a = true;
        if (!pl.w_direct) {
            pl.wr_taps_inner = true;
            pl.w_ld = pl.taps * g.icg;
        }
    }
    // Output pixel (od, oh, ow) is GEMM row (od L[1] + oh) L[2] + ow, and y's
    // when the planes are as wide as y and, with more than one depth slice,
    // as high: a single slice never reaches its planes' junk rows (x
    // unfolded along w, kw = 1, with stride or padding along h: a first
    // layer's output went through the scratch, 20% of its time).
    if (pl.b_gather) {
        pl.y_direct = g.ys[4] == 1 && g.ys[1] >= pl.m_virtual && conv_packed_spatial(g.out, g.ys, 1);
    } else if (same_type && pl.L[2] == g.out[2] && (pl.L[1] == g.out[1] || g.out[0] == 1)) {
        if (!pl.filter_a)
            pl.y_direct = (g.ys[1] == 1 || oc == 1) && g.ys[4] >= oc && conv_packed_spatial(g.out, g.ys, g.ys[4]);
        else
            pl.y_direct = g.ys[4] == 1 && g.ys[1] >= pl.m_virtual && conv_packed_spatial(g.out, g.ys, 1);
    }
    // Without y_direct, GEMMs of about 128K outputs keep the scratch in L2.
    pl.chunk = pl.y_direct || pl.b_gather ? pl.m_virtual
                           : std::min(pl.m_virtual, std::max<int64_t>(256, 131072 / std::max<int64_t>(g.ocg, 1)));
    if (pl.im2col_cols > 0) {
        const int64_t rows = std::max<int64_t>(64, kIm2colChunkBytes / (pl.im2col_ld * int64_t(esize)));
        const int64_t chunks = (pl.m_virtual + rows - 1) / rows;
        pl.chunk = std::min(pl.chunk, (pl.m_virtual + chunks - 1) / chunks);
    }
    pl.scratch_elems = pl.y_direct ? 0 : pl.chunk * g.ocg;

    // Whole images per thread when there are enough of them (and enough
    // work to pay for the fork); else every thread works on each image
    // (planes copy and GEMM, which split their own work). The im2col path's
    // workers take whole chunks of any image.
    const int threads = h.threads();
    constexpr double kMinParallelFlops = 1e6;
    const int64_t outer_items = pl.im2col_cols > 0 ? g.n * ((pl.m_virtual + pl.chunk - 1) / pl.chunk) : g.n;
    pl.outer_parallel = threads > 1 && g.flops() >= kMinParallelFlops &&
                        (pl.im2col_cols > 0 ? outer_items > 1 : g.n % threads == 0 || g.n >= 4 * threads);
    pl.workers = pl.outer_parallel ? static_cast<int>(std::min<int64_t>({threads, outer_items, 64})) : 1;
    const ExecContext inner{pl.outer_parallel ? 1 : threads};
    const int64_t k_total = pl.taps * g.icg;
    // The GEMM's m x n: pixels x K, or K x pixels with the filter as A.
    const int64_t m = !pl.filter_a ? pl.chunk : g.ocg, n = !pl.filter_a ? g.ocg : pl.chunk;
    const auto ws_size = g.compute == ANYDNN_DATA_DOUBLE ? gemm_kernels<double>(h.isa).workspace_size
                                                         : gemm_kernels<float>(h.isa).workspace_size;
    pl.gemm_ws_bytes = ws_size(inner, m, n, k_total);
    // Packed once, the filter serves every image and chunk (res5's 3x3
    // filter is 9.4 MB: packing it per image cost a third of the layer at
    // mb16). Used by one GEMM only (one image, one chunk), it stays with the
    // GEMM, which packs it a cache block at a time into L2: packing it whole
    // first would write it out and read it back once more.
    // (The im2col path always reads it packed.)
    // (Channels last with the filter as A, the GEMM reads it in place.)
    const int64_t filter_uses = g.n * ((pl.m_virtual + pl.chunk - 1) / pl.chunk);
    if ((filter_uses > 1 || pl.im2col_cols > 0) && !(pl.filter_a && pl.channels_last))
        pl.wpk_group_elems = conv_packed_filter_elems(h.isa, g.compute, !pl.filter_a, g.ocg, k_total);
    if (pl.b_gather) {
        const auto packed_size = g.compute == ANYDNN_DATA_DOUBLE ? gemm_kernels<double>(h.isa).packed_b_size
                                                                 : gemm_kernels<float>(h.isa).packed_b_size;
        pl.b_gather_bytes = round64(static_cast<std::size_t>(k_total) * sizeof(int64_t)) +
                            round64(static_cast<std::size_t>(n) * sizeof(int64_t)) + round64(packed_size(n, k_total));
    }
    const int64_t gathered = pl.image_elems + pl.chunk * pl.im2col_ld;  // planes or an im2col chunk
    const std::size_t per_worker = round64(static_cast<std::size_t>(gathered) * esize) +
                                   round64(static_cast<std::size_t>(pl.scratch_elems) * esize) +
                                   2 * round64(static_cast<std::size_t>(pl.taps) * sizeof(void *)) +
                                   round64(pl.gemm_ws_bytes);
    // 64: the kernel aligns the workspace's start.
    pl.workspace_bytes = 64 + round64(static_cast<std::size_t>(pl.wr_elems) * esize) +
                         round64(static_cast<std::size_t>(g.groups * pl.wpk_group_elems) * esize) +
                         static_cast<std::size_t>(pl.workers) * per_worker + pl.b_gather_bytes;
    return kSuccess;
}

}  // namespace

// F(4x4, 3x3) takes 2-D 3x3 filters, stride and dilation 1.
Status winograd_takes(const ops::ConvGeometry &g) {
    if (g.pad[0] != 0)
        return fail(ANYDNN_STATUS_NOT_SUPPORTED,
                    "WINOGRAD_NONFUSED takes 2-D convolutions; this one pads the depth by %lld",
                    static_cast<long long>(g.pad[0]));
    if (g.in[0] != 1 || g.k[0] != 1 || g.k[1] != 3 || g.k[2] != 3)
        return fail(ANYDNN_STATUS_NOT_SUPPORTED,
                    "WINOGRAD_NONFUSED takes 2-D 3x3 filters (F(4x4, 3x3)); this filter is %lldx%lldx%lld",
                    static_cast<long long>(g.k[0]), static_cast<long long>(g.k[1]), static_cast<long long>(g.k[2]));
    if (g.stride[1] != 1 || g.stride[2] != 1)
        return fail(ANYDNN_STATUS_NOT_SUPPORTED, "WINOGRAD_NONFUSED takes stride 1 only; this one is %lldx%lld",
                    static_cast<long long>(g.stride[1]), static_cast<long long>(g.stride[2]));
    if (g.dil[1] != 1 || g.dil[2] != 1)
        return fail(ANYDNN_STATUS_NOT_SUPPORTED, "WINOGRAD_NONFUSED takes dilation 1 only; this one is %lldx%lld",
                    static_cast<long long>(g.dil[1]), static_cast<long long>(g.dil[2]));
    return kSuccess;
}

// The 36 matrices of U, V and M are read and written side by side by the
// transforms: strides of a multiple of 4 KiB (64 x 64 floats, 1 MiB at res5)
// put all 36 streams in the same cache sets. Each stride is 64 bytes past a
// multiple of 4 KiB instead.
int64_t winograd_point_stride(int64_t elems, std::size_t esize) {
    const std::size_t bytes = (static_cast<std::size_t>(elems) * esize + 4095) / 4096 * 4096 + 64;
    return static_cast<int64_t>(bytes / esize);
}

// WINOGRAD_NONFUSED: F(4x4, 3x3) for 2-D 3x3 filters, stride and dilation 1.
Status plan_winograd(const Handle &h, const ops::ConvForwardProblem &p, ConvWinogradPlan *out) {
    const ops::ConvGeometry &g = p.geo;
    ANYDNN_TRY(winograd_takes(g));
    ConvWinogradPlan &pl = *out;
    pl = ConvWinogradPlan{};
    const std::size_t esize = dtype_size(g.compute);
    pl.tiles_h = (g.out[1] + 3) / 4;
    pl.tiles_w = (g.out[2] + 3) / 4;
    pl.tiles = g.n * pl.tiles_h * pl.tiles_w;
    // Blocks of tiles whose V and M (36 * (icg + ocg) values per tile) stay
    // in about 2 MiB (L2 and the near L3), at least 64 tiles so that each
    // point's U (icg x ocg) is read for enough rows; the blocks balanced and,
    // with several threads, a multiple of them. The GEMM gives every element
    // the same bits whatever its block (ARCHITECTURE, "GEMM engine"), so the
    // blocking may depend on the thread count without changing results.
    const int threads = h.threads();
    const int64_t per_tile = kWinogradPoints * (g.icg + g.ocg) * static_cast<int64_t>(esize);
    const int64_t max_block = std::max<int64_t>(64, (int64_t{2} << 20) / per_tile);
    pl.blocks = (pl.tiles + max_block - 1) / max_block;
    if (threads > 1 && pl.blocks > 1 && pl.tiles >= 16 * threads)
        pl.blocks = (pl.blocks + threads - 1) / threads * threads;
    pl.block = (pl.tiles + pl.blocks - 1) / pl.blocks;
    pl.block = (pl.block + 7) / 8 * 8;
    pl.blocks = (pl.tiles + pl.block - 1) / pl.block;
    // Workers take whole blocks when there are enough of them; otherwise
    // they share each block (tiles for the transforms, points for the
    // GEMMs). Small problems stay on the calling thread.
    const bool parallel = threads > 1 && g.flops() >= 1e6;
    pl.outer_parallel = parallel && pl.blocks >= threads;
    pl.workers = parallel ? std::min(threads, 64) : 1;
    if (pl.outer_parallel) pl.workers = static_cast<int>(std::min<int64_t>(pl.workers, pl.blocks));
    const auto ws_size = g.compute == ANYDNN_DATA_DOUBLE ? gemm_kernels<double>(h.isa).workspace_size
                                                         : gemm_kernels<float>(h.isa).workspace_size;
    pl.gemm_ws_bytes = ws_size(ExecContext{1}, pl.block, g.ocg, g.icg);
    // A single block's few tiles read each value of U (36 icg ocg values,
    // 9.4 MB at ResNet-50's res4 and 38 MB at VGG-16's conv5) a few times:
    // written whole it went to memory and back (the filter transform was
    // 40-60% of res4 at mb1, its time doubling when the L3 was busy). By
    // slivers a worker's piece of it (1.8 MB at most) stays near its core:
    // its L2 or the nearest L3. blocks == 1 does not depend on
    // the thread count, so neither do the results.
    pl.by_slivers = pl.blocks == 1;
    const GemmBlocking blocking = g.compute == ANYDNN_DATA_DOUBLE ? gemm_kernels<double>(h.isa).blocking
                                                                  : gemm_kernels<float>(h.isa).blocking;
    if (pl.by_slivers) pl.u_stride = winograd_point_stride(gemm_kc_step(blocking.kc, g.icg) * blocking.nr, esize);
    else pl.wpk_elems = winograd_point_stride(conv_packed_filter_elems(h.isa, g.compute, true, g.ocg, g.icg), esize);
    pl.v_stride = winograd_point_stride(pl.block * g.icg, esize);
    pl.m_stride = winograd_point_stride(pl.block * g.ocg, esize);
    const std::size_t vm = round64(static_cast<std::size_t>(kWinogradPoints * pl.v_stride) * esize) +
                           round64(static_cast<std::size_t>(kWinogradPoints * pl.m_stride) * esize);
    if (g.xs[1] != 1 && g.groups * g.icg > 1 && g.xs[4] == 1 && conv_packed_spatial(g.in, g.xs, 1))
        pl.x_copy_elems = g.n * g.groups * g.icg * g.in[1] * g.in[2];
    pl.workspace_bytes = 64 + round64(static_cast<std::size_t>(pl.x_copy_elems) * dtype_size(g.dt)) +
                         round64(static_cast<std::size_t>(g.groups * kWinogradPoints * pl.wpk_elems) * esize) +
                         static_cast<std::size_t>(pl.workers) *
                             round64(static_cast<std::size_t>(kWinogradPoints * pl.u_stride) * esize) +
                         static_cast<std::size_t>(pl.outer_parallel ? pl.workers : 1) * vm +
                         static_cast<std::size_t>(pl.workers) * round64(pl.gemm_ws_bytes);
    return kSuccess;
}

namespace {

// p on conv_gemm_geometry (z's strides moved as y's).
ops::ConvForwardProblem gemm_problem(const ops::ConvForwardProblem &p) {
    ops::ConvForwardProblem q = p;
    q.geo = conv_gemm_geometry(p.geo);
    if (q.geo.n != p.geo.n) {
        const int64_t zs0 = p.zs[0], zs1 = p.zs[1];
        for (int i = 0; i < 5; ++i) q.zs[i] = 0;
        q.zs[0] = zs0 * p.geo.n, q.zs[1] = zs1, q.zs[4] = zs0;
    }
    return q;
}

// IMPLICIT_PRECOMP_GEMM's problem: p on conv_gemm_geometry, unfolded along
// w when that pays (conv_unfold.hpp) and the im2col path does not take it
// (x' then comes first in the workspace), else on channels-last copies
// when conv_channels_last_copies takes it.
struct PrecompProblem {
    ops::ConvForwardProblem run;
    std::optional<ConvUnfold> unfold;
    bool copies = false;  // run on channels-last copies (conv_channels_last_copies)
};

PrecompProblem precomp_problem(const ops::ConvForwardProblem &p, Isa isa) {
    PrecompProblem r;
    r.run = gemm_problem(p);
    if (forward_pixel_dots(r.run.geo, isa)) return r;
    if (!forward_im2col(r.run.geo)) r.unfold = conv_w_unfold(r.run.geo);
    if (r.unfold) {
        r.run.geo = r.unfold->geo;
        return r;
    }
    if (forward_b_gather(r.run.geo)) return r;
    if (const std::optional<ops::ConvGeometry> copies = conv_channels_last_copies(r.run.geo)) {
        r.copies = true;
        r.run.geo = *copies;
    }
    return r;
}

// plan_precomp on r, with r's copies (first in the workspace) when it has them.
Status plan_precomp_problem(const Handle &h, const PrecompProblem &r, ConvPrecompPlan *pl) {
    ANYDNN_TRY(plan_precomp(h, r.run, pl));
    if (r.copies) {
        const ops::ConvGeometry &q = r.run.geo;
        pl->copy_x_elems = q.n * q.groups * q.icg * q.in_pixels();
        pl->copy_y_elems = q.n * q.groups * q.ocg * q.out_pixels();
        pl->workspace_bytes += 64 + round64(static_cast<std::size_t>(pl->copy_x_elems) * dtype_size(q.dt)) +
                               round64(static_cast<std::size_t>(pl->copy_y_elems) * dtype_size(q.dt));
    }
    return kSuccess;
}

const char *algo_name(anydnnConvolutionFwdAlgo_t algo) {
    switch (algo) {
    case ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "IMPLICIT_GEMM";
    case ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "IMPLICIT_PRECOMP_GEMM";
    case ANYDNN_CONVOLUTION_FWD_ALGO_GEMM: return "GEMM";
    case ANYDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "DIRECT";
    case ANYDNN_CONVOLUTION_FWD_ALGO_FFT: return "FFT";
    case ANYDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "FFT_TILING";
    case ANYDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "WINOGRAD";
    case ANYDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "WINOGRAD_NONFUSED";
    default: return nullptr;
    }
}

}  // namespace

// WINOGRAD_NONFUSED's model: the 36 GEMMs (36 icg ocg MACs per tile, the
// tiles' outputs past the edge included) at the GEMM's speed, slower for
// short products (icg or ocg below 64), plus the transforms (about 40
// operations per input and output value per tile at a quarter of the
// GEMM's speed: memory bound) and the filter's (36 icg ocg values written,
// packed and read once per call: worth about 10 MACs each while the packed
// filter fits in half the 32 MiB L3, about 48 beyond, where every pass over
// it goes to DRAM). Fitted on ResNet-50 at mb1, 2 threads (session 10):
// res4 3x3 (9.4 MB packed) Winograd 0.83 ms against the GEMM's 1.61 run
// after run (1.50 against 1.70 with the caches emptied by oneDNN's runs in
// between), res5 (38 MB) 5.8 against 2.1; the one coefficient of 64 made
// res4 take the GEMM. By slivers (one block of tiles) U stays in the L2
// whatever its size: about 14 MACs a value, the transform's arithmetic
// (session 31, Zen 5, one thread: res4 at mb1 0.59 ms, transforms 40%,
// the GEMM 48%).
double winograd_cost(const ops::ConvGeometry &g, const ConvWinogradPlan &pl) {
    const double tiles = static_cast<double>(g.n * ((g.out[1] + 3) / 4) * ((g.out[2] + 3) / 4));
    const double icg = static_cast<double>(g.icg), ocg = static_cast<double>(g.ocg), groups = static_cast<double>(g.groups);
    const double eff = std::min(1.0, std::min(icg, ocg) / 64.0);
    const double gemm = 2.0 * groups * tiles * 36 * icg * ocg / eff;
    const double transforms = 4.0 * groups * tiles * 36 * (icg + ocg) * 2;
    const double filter_bytes = groups * 36 * icg * ocg * static_cast<double>(dtype_size(g.compute));
    const double per_value = pl.by_slivers ? 14 : filter_bytes <= double(16 << 20) ? 10 : 48;
    const double filter = 2.0 * groups * 36 * icg * ocg * per_value;
    return gemm + transforms + filter;
}

namespace {

// Relative speeds of the model: the GEMM runs at 1, slower when its
// reduction is short (per group: C/groups per tap, a GEMM call per group;
// one group: the batch-reduce over taps is one long reduction, so C * taps);
// IMPLICIT_GEMM's scalar loops at about 1/20; DIRECT's vector loops at 1/2,
// 1/8 with channel multipliers (their L1 blocks instead of registers), and
// on first layers (few_channels) at 2 over the lanes it computes (70-85%
// of peak where the GEMMs ran these layers at 25-45%).
double modeled_cost(const ops::ConvGeometry &g, anydnnConvolutionFwdAlgo_t algo, const ConvPrecompPlan *pl) {
    const double flops = g.flops();
    switch (algo) {
    case ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: {
        const double junk = static_cast<double>(pl->m_virtual) / static_cast<double>(g.out_pixels());
        const int64_t k = g.groups == 1 ? g.icg * g.taps() : g.icg;
        const double k_eff = std::min(1.0, static_cast<double>(k) / 16.0);
        return flops * junk / k_eff;
    }
    case ANYDNN_CONVOLUTION_FWD_ALGO_DIRECT: {
        FewChannels f;
        if (few_channels(g, 1, &f)) return flops * 0.5 * static_cast<double>(f.lanes) / static_cast<double>(g.ocg);
        return flops * (g.ocg == 1 ? 2 : 8);
    }
    default: return flops * 20;
    }
}

}  // namespace

// 256 KiB: half of a Zen 3 core's L2.
constexpr std::size_t kDepthwiseBlockBytes = 256 << 10;

namespace {

// Whether the blocks' padded planes would go through the column strips:
// float, a geometry they take, and a block's 16 lanes filled (with fewer
// channels the blocks would multiply and transpose the zero lanes too:
// 16x the work for one channel, where the rows path runs full vectors).
bool blocks_columns(const ops::ConvGeometry &g) {
    return g.dt == ANYDNN_DATA_FLOAT && g.compute == ANYDNN_DATA_FLOAT && g.groups >= 16 && depthwise_columns_fit(g);
}

}  // namespace

bool depthwise_blocks(const ops::ConvGeometry &g, int threads, DepthwiseBlocks *b) {
    // Rows of 32 or more go by depthwise_rows where the column strips do
    // not apply: faster there (MobileNet-v2's 112 x 112 layer 1.3x slower in
    // blocks with depthwise_strip, 56 x 56 1.2x; the stride-2 layers from
    // them alike).
    DepthwiseRows rows;
    if (g.xs[1] == 1 || g.ocg != 1 || g.dt != g.compute || g.in[0] != 1 || g.k[0] != 1 || g.out[0] != 1 ||
        !conv_packed_spatial(g.in, g.xs, 1) || (!blocks_columns(g) && depthwise_rows(g, threads, &rows)))
        return false;
    const int64_t s = g.stride[1], reach = (g.k[1] - 1) * g.dil[1] + 1, out_w = g.out[2];
    const int64_t wp = (out_w - 1) * g.stride[2] + (g.k[2] - 1) * g.dil[2] + 1;  // the columns the taps reach
    const int64_t channels = (g.groups + 15) / 16 * 16, team = std::max(threads, 1);
    // A worker's pixels for a band of `rows` output rows: the padded rows it
    // reads, twice its outputs, and the filter's taps.
    const auto padded_rows = [&](int64_t rows) { return (rows - 1) * s + reach; };
    const auto pixels = [&](int64_t rows) {
        const int64_t hp = padded_rows(rows);
        return hp * wp + 2 * rows * out_w + g.taps();
    };
    // Of the blocks whose buffers fit with bands of 8 rows or the whole
    // image, the one whose busiest worker has the least work (the taps'
    // MACs, and the transposes' and the padding's few per element, counted
    // as 2 MACs), the larger on a tie: a 14 x 14 layer's 192 channels go as 3 + 3
    // items of 32, not 2 + 1 of 64.
    double best = 0;
    b->block = 0;
    for (int64_t block : {64, 32, 16}) {
        block = std::min(block, channels);
        const std::size_t bytes_per_pixel = static_cast<std::size_t>(block) * dtype_size(g.compute);
        int64_t rows = g.out[1];
        while (rows > 1 && static_cast<std::size_t>(pixels(rows)) * bytes_per_pixel > kDepthwiseBlockBytes) --rows;
        if (static_cast<std::size_t>(pixels(rows)) * bytes_per_pixel > kDepthwiseBlockBytes ||
            rows < std::min<int64_t>(8, g.out[1]))
            continue;
        const int64_t bands = (g.out[1] + rows - 1) / rows, items = g.n * ((g.groups + block - 1) / block) * bands;
        const double item = static_cast<double>(block * (rows * out_w * g.taps() + 2 * (pixels(rows) - g.taps())));
        const double busiest = static_cast<double>((items + team - 1) / team) * item;
        if (b->block != 0 && busiest >= best) continue;
        best = busiest;
        b->block = block, b->band = rows, b->padded[0] = padded_rows(rows), b->padded[1] = wp;
        b->worker_elems = pixels(rows) * block;
    }
    return b->block > 0;
}

DepthwiseCopies depthwise_copies(const ops::ConvGeometry &g) {
    DepthwiseCopies c;
    if (g.xs[1] == 1) return c;
    const int64_t oc = g.groups * g.ocg;
    c.y_offset = round64(static_cast<std::size_t>(g.groups * g.icg * g.in[0] * g.in[1] * g.in[2]) * dtype_size(g.dt));
    c.y_back = g.dt == g.compute && g.ys[4] == 1 && (oc == 1 || g.ys[1] >= g.out_pixels()) &&
               conv_packed_spatial(g.out, g.ys, 1);
    c.bytes = c.y_offset + (c.y_back ? 2 * static_cast<std::size_t>(oc * g.out_pixels()) * dtype_size(g.compute) : 0);
    return c;
}

std::size_t conv_depthwise_workspace(const ops::ConvGeometry &g, int threads) {
    const std::size_t esize = dtype_size(g.compute);
    const std::size_t filter = round64(static_cast<std::size_t>(g.taps() * g.groups * g.ocg) * esize);
    const std::size_t workers = static_cast<std::size_t>(std::clamp(threads, 1, 64));
    DepthwiseBlocks b;
    if (depthwise_blocks(g, threads, &b))
        return 64 + workers * round64(static_cast<std::size_t>(b.worker_elems) * esize);
    return 64 + filter + depthwise_copies(g).bytes;
}

// A band's planes and sums in about 24 KiB: in L1 beside the filter's
// taps while every tap reads the planes (Zen 3's L1 holds 32 KiB).
constexpr std::size_t kDepthwiseRowsBandBytes = 24 << 10;

bool depthwise_rows(const ops::ConvGeometry &g, int threads, DepthwiseRows *r) {
    // Narrower rows go by depthwise_blocks: a 28-wide layer's channels
    // (MobileNet-v2's b5) took 1.2-1.5x longer here, its bands' copies,
    // epilogue rows and short taps passes costing more than the transposes.
    // So do float's rows that the blocks' column strips take (MobileNet-v2's
    // 56 x 56 and 112 x 112 layers: b2_dw_s2 0.88x oneDNN's time there, 1.36x
    // here; b3_dw 1.10x, 1.20x; dw1 alike).
    DepthwiseBlocks blocks;
    if (g.icg != 1 || g.xs[4] != 1 || g.in[0] != 1 || g.k[0] != 1 || g.out[0] != 1 || g.pad[0] != 0 ||
        g.stride[1] > 2 || g.stride[2] > 2 || g.out[2] < kDepthwiseRowsMinWidth || g.taps() > kDepthwiseRowsMaxTaps ||
        (blocks_columns(g) && depthwise_blocks(g, threads, &blocks)))
        return false;
    const int64_t sh = g.stride[1], sw = g.stride[2], out_h = g.out[1];
    const int64_t extra = (g.k[1] - 1) * g.dil[1] / sh;  // plane rows past a band's output rows
    const int64_t reach_w = (g.k[2] - 1) * g.dil[2];     // the furthest tap's column
    r->pitch = g.out[2] + reach_w / sw;
    // Whole vectors past a band's last virtual pixel, and the furthest tap's shift.
    r->slack = (reach_w + 31) / 16 * 16;
    // The most output rows whose planes and sums fit, at least one; then
    // bands of equal rows, more of them where the images' channels are too
    // few to share out.
    const int64_t budget = static_cast<int64_t>(kDepthwiseRowsBandBytes / dtype_size(g.compute));
    const int64_t per_row = (sh * sw + 1) * r->pitch, fixed = sh * sw * extra * r->pitch;
    const int64_t fit = std::clamp<int64_t>((budget - fixed) / per_row, 1, out_h);
    // A band copies its rows plus the filter's reach past them: where the
    // budget cuts the image into bands shorter than that reach (dilated
    // along h), most copies would be repeats (dilation 32 on 64 x 200: 10x
    // the undilated layer's time, 2x the GEMM's); the blocks or the copies
    // take it.
    if (fit < out_h && extra > fit) return false;
    const int64_t channels = g.n * g.groups, team = std::max(threads, 1);
    const int64_t bands = std::clamp<int64_t>(std::max((out_h + fit - 1) / fit, (4 * team + channels - 1) / channels),
                                              1, out_h);
    r->band = (out_h + bands - 1) / bands;
    r->bands = (out_h + r->band - 1) / r->band;
    r->plane_rows = r->band + extra;
    r->worker_elems = sh * sw * r->plane_rows * r->pitch + r->slack + (sw == 2 ? 2 * r->pitch : 0) +
                      r->band * r->pitch + r->slack + g.ocg * g.taps();
    return true;
}

std::size_t conv_depthwise_rows_workspace(const DepthwiseRows &r, anydnnDataType_t compute, int threads) {
    const std::size_t workers = static_cast<std::size_t>(std::clamp(threads, 1, kDepthwiseRowsMaxWorkers));
    return 64 + workers * round64(static_cast<std::size_t>(r.worker_elems) * dtype_size(compute));
}

// A worker's buffers in about 256 KiB (half of a Zen 3 core's L2), and
// about 8 items per thread: a 112-row first layer at mb1 goes in bands of
// 7 rows, 8 per thread.
constexpr std::size_t kFewChannelsBytes = 256 << 10;

bool few_channels(const ops::ConvGeometry &g, int threads, FewChannels *f) {
    // (Fewer than 8 output channels would leave most of the strips' lanes
    // idle: a single channel is depthwise's.)
    if (g.groups != 1 || g.icg > kFewChannelsMax || g.ocg < 8 || g.in[0] != 1 || g.k[0] != 1 || g.out[0] != 1 ||
        g.dil[2] != 1 || g.icg * g.taps() > kFewChannelsMaxProducts)
        return false;
    const std::size_t esize = dtype_size(g.compute);
    const int64_t out_h = g.out[1], out_w = g.out[2], sw = g.stride[2];
    const int64_t quantum = static_cast<int64_t>(128 / esize);
    f->channels_first = g.ys[4] == 1 && g.ocg > 1;
    f->lanes = (g.ocg + quantum - 1) / quantum * quantum;
    if (f->channels_first) {
        // A phase's row holds the columns of out_w pixels rounded up to
        // whole vectors (the strips read whole vectors) and the taps' reach.
        f->phase_elems = (out_w + 15) / 16 * 16 + (g.k[2] - 1) / sw;
        f->row_elems = sw * f->phase_elems;
    } else {
        f->row_elems = ((out_w - 1) * sw + g.k[2]) * g.icg;
    }
    const auto padded_rows = [&](int64_t rows) { return (rows - 1) * g.stride[1] + (g.k[1] - 1) * g.dil[1] + 1; };
    const auto elems = [&](int64_t rows) {
        return padded_rows(rows) * f->row_elems * (f->channels_first ? g.icg : 1) + rows * out_w * f->lanes +
               (f->channels_first ? f->row_elems : 0);
    };
    const int64_t bands = std::clamp<int64_t>((8 * std::max(threads, 1) + g.n - 1) / g.n, 1, out_h);
    int64_t rows = (out_h + bands - 1) / bands;
    while (rows > 1 && static_cast<std::size_t>(elems(rows)) * esize > kFewChannelsBytes) --rows;
    // The strips' offsets into a worker's padded rows are int32.
    if (padded_rows(rows) * f->row_elems * g.icg > std::numeric_limits<int32_t>::max()) return false;
    f->band = rows;
    f->padded_rows = padded_rows(rows);
    f->filter_elems = g.taps() * g.icg * f->lanes;
    f->worker_elems = elems(rows);
    return true;
}

std::size_t conv_few_channels_workspace(const FewChannels &f, anydnnDataType_t compute, int threads) {
    const std::size_t esize = dtype_size(compute), workers = static_cast<std::size_t>(std::clamp(threads, 1, 64));
    return 64 + round64(static_cast<std::size_t>(f.filter_elems) * esize) +
           workers * round64(static_cast<std::size_t>(f.worker_elems) * esize);
}

Status conv_forward_workspace(const Handle &h, const ops::ConvForwardProblem &p, anydnnConvolutionFwdAlgo_t algo,
                              std::size_t *bytes) {
    const ops::ConvGeometry &g = p.geo;
    switch (algo) {
    case ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: *bytes = 0; return kSuccess;
    case ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: {
        const PrecompProblem r = precomp_problem(p, h.isa);
        ConvPrecompPlan pl;
        ANYDNN_TRY(plan_precomp_problem(h, r, &pl));
        *bytes = conv_unfold_workspace(r.unfold) + pl.workspace_bytes;
        return kSuccess;
    }
    case ANYDNN_CONVOLUTION_FWD_ALGO_DIRECT: {
        FewChannels f;
        DepthwiseRows r;
        if (few_channels(g, h.threads(), &f)) *bytes = conv_few_channels_workspace(f, g.compute, h.threads());
        else if (depthwise_rows(g, h.threads(), &r)) *bytes = conv_depthwise_rows_workspace(r, g.compute, h.threads());
        else if (is_depthwise(g)) *bytes = conv_depthwise_workspace(g, h.threads());
        else
            return fail(ANYDNN_STATUS_NOT_SUPPORTED,
                        "DIRECT takes depthwise convolutions (C/groups == 1) and 2-D first layers (one group, "
                        "C <= %lld, K >= 8, no dilation along w); this one has %lld groups of C/groups = %lld, "
                        "K/groups = %lld",
                        static_cast<long long>(kFewChannelsMax), static_cast<long long>(g.groups),
                        static_cast<long long>(g.icg), static_cast<long long>(g.ocg));
        return kSuccess;
    }
    case ANYDNN_CONVOLUTION_FWD_ALGO_GEMM:
        return fail(ANYDNN_STATUS_NOT_SUPPORTED,
                    "GEMM (explicit im2col) is not implemented on the CPU backend: IMPLICIT_PRECOMP_GEMM does its work "
                    "without the im2col copy");
    case ANYDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: {
        ConvWinogradPlan pl;
        ANYDNN_TRY(plan_winograd(h, p, &pl));
        *bytes = pl.workspace_bytes;
        return kSuccess;
    }
    case ANYDNN_CONVOLUTION_FWD_ALGO_WINOGRAD:
        return fail(ANYDNN_STATUS_NOT_SUPPORTED,
                    "WINOGRAD (fused) is not implemented on the CPU backend: WINOGRAD_NONFUSED (F(4x4, 3x3)) takes "
                    "3x3 stride-1 convolutions");
    case ANYDNN_CONVOLUTION_FWD_ALGO_FFT:
    case ANYDNN_CONVOLUTION_FWD_ALGO_FFT_TILING:
        return fail(ANYDNN_STATUS_NOT_SUPPORTED, "%s is not implemented on the CPU backend", algo_name(algo));
    default:
        return fail(ANYDNN_STATUS_BAD_PARAM, "algo %d is not an anydnnConvolutionFwdAlgo_t", static_cast<int>(algo));
    }
}

void execute_conv_forward(const Handle &h, const ops::ConvForwardProblem &p, anydnnConvolutionFwdAlgo_t algo,
                          const ConvOperands &o, void *workspace) {
    const ConvKernels &k = conv_kernels(h.isa);
    const ExecContext ctx{h.threads()};
    switch (algo) {
    case ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: {
        const PrecompProblem r = precomp_problem(p, h.isa);
        ConvPrecompPlan pl;
        plan_precomp_problem(h, r, &pl);
        ConvOperands ro = o;
        ro.x = conv_unfolded_x(ctx, r.unfold, o.x, workspace);
        k.precomp(ctx, r.run, pl, ro, static_cast<char *>(workspace) + conv_unfold_workspace(r.unfold));
        return;
    }
    case ANYDNN_CONVOLUTION_FWD_ALGO_DIRECT: {
        FewChannels f;
        DepthwiseRows r;
        if (few_channels(p.geo, h.threads(), &f)) conv_few_channels_kernels(h.isa).run(ctx, p, f, o, workspace);
        else if (depthwise_rows(p.geo, h.threads(), &r))
            conv_depthwise_rows_kernels(h.isa).run(ctx, p, r, o, workspace);
        else k.depthwise(ctx, p, o, workspace);
        return;
    }
    case ANYDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: {
        ConvWinogradPlan pl;
        plan_winograd(h, p, &pl);
        conv_winograd_kernels(h.isa).run(ctx, p, pl, o, workspace);
        return;
    }
    default: k.implicit(ctx, p, o); return;
    }
}

void rank_conv_forward_algos(const Handle &h, const ops::ConvForwardProblem &p, anydnnMathType_t math,
                             ConvAlgoChoice *out) {
    rank_by_model(
        out, ANYDNN_CONVOLUTION_FWD_ALGO_COUNT, math,
        [&](anydnnConvolutionFwdAlgo_t algo, std::size_t *bytes) { return conv_forward_workspace(h, p, algo, bytes); },
        [&](anydnnConvolutionFwdAlgo_t algo) {
            if (algo == ANYDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED) {
                ConvWinogradPlan pl;
                return plan_winograd(h, p, &pl) == kSuccess ? winograd_cost(p.geo, pl) : p.geo.flops() * 20;
            }
            if (algo != ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM) return modeled_cost(p.geo, algo, nullptr);
            const PrecompProblem r = precomp_problem(p, h.isa);
            ConvPrecompPlan pl;
            plan_precomp_problem(h, r, &pl);
            return modeled_cost(r.run.geo, algo, &pl);
        });
}

}  // namespace anydnn::cpu
