// The CPU backend of backward convolution: the plans of the GEMM
// algorithms (ConvBackwardPlan), workspaces, the model ranking and Find.
#include "cpu/conv_bwd_exec.hpp"

#include <algorithm>
#include <optional>

#include "core/dtype.hpp"
#include "cpu/conv_exec.hpp"
#include "cpu/conv_unfold.hpp"
#include "cpu/gemm.hpp"

namespace anydnn::cpu {

namespace {

constexpr std::size_t round64(std::size_t b) { return (b + 63) & ~std::size_t{63}; }

// Backward filter holds the planes and dy grids of about this many bytes of
// images at once (at least one image): the more images per GEMM, the longer
// its reduction and the fewer passes over dw.
constexpr std::size_t kFilterBatchBytes = std::size_t{32} << 20;

// Backward filter splits the pixels of each GEMM into parts until there are
// about kFilterItems work items (plan_backward); the im2col path its chunks
// into at most kIm2colFilterParts parts.
constexpr int64_t kFilterItems = 12;
constexpr int64_t kIm2colFilterParts = 8;
constexpr int64_t kFilterMinPartPixels = 512;
constexpr std::size_t kFilterMaxPartialBytes = std::size_t{16} << 20;

enum class Direction { data, filter };

// p on conv_gemm_geometry.
ops::ConvBackwardProblem gemm_problem(const ops::ConvBackwardProblem &p) {
    ops::ConvBackwardProblem q = p;
    q.geo = conv_gemm_geometry(p.geo);
    return q;
}

// Plans the GEMM algorithm on p, which is already on conv_gemm_geometry.
Status plan_backward(const Handle &h, const ops::ConvBackwardProblem &p, Direction dir, ConvBackwardPlan *out) {
    const ops::ConvGeometry &g = p.geo;
    ConvBackwardPlan &bp = *out;
    bp = ConvBackwardPlan{};
    ANYDNN_TRY(plan_conv_planes(g, &bp.planes));
    const ConvPrecompPlan &pl = bp.planes;
    const int64_t oc = g.groups * g.ocg;
    const std::size_t esize = dtype_size(g.compute);

    // The dy grid: dy itself when it has no junk pixels (then no tap has
    // a pixel offset either) and the GEMM's layout.
    int64_t max_tap_pixel = 0;
    for (int64_t t = 0; t < pl.taps; ++t) max_tap_pixel = std::max(max_tap_pixel, pl.tap_pixel[t]);
    const bool no_junk = pl.L[0] == g.out[0] && pl.L[1] == g.out[1] && pl.L[2] == g.out[2];
    if (g.dt == g.compute && no_junk) {
        if (pl.channels_last && (g.ys[1] == 1 || oc == 1) && g.ys[4] >= oc &&
            conv_packed_spatial(g.out, g.ys, g.ys[4])) {
            bp.dy_direct = true;
            bp.dy_pix_stride = g.ys[4];
        } else if (!pl.channels_last && g.ys[4] == 1 && g.ys[1] >= pl.plane_pixels &&
                   conv_packed_spatial(g.out, g.ys, 1)) {
            bp.dy_direct = true;
            bp.dy_chan_stride = g.ys[1];
        }
    }
    if (!bp.dy_direct) {
        bp.dy_front = dir == Direction::data ? max_tap_pixel : 0;
        bp.dy_pixels = bp.dy_front + pl.plane_pixels;
        bp.dy_pix_stride = pl.channels_last ? oc : 1;
        bp.dy_chan_stride = pl.channels_last ? 1 : bp.dy_pixels;
        bp.dy_image_elems = bp.dy_pixels * oc;
    }

    const int threads = h.threads();
    const auto ws_size = g.compute == ANYDNN_DATA_DOUBLE ? gemm_kernels<double>(h.isa).workspace_size
                                                         : gemm_kernels<float>(h.isa).workspace_size;
    const std::size_t image_bytes = round64(static_cast<std::size_t>(pl.image_elems) * esize) +
                                    round64(static_cast<std::size_t>(bp.dy_image_elems) * esize);
    if (dir == Direction::data) {
        // As the forward: whole images per thread when there are enough.
        constexpr double kMinParallelFlops = 1e6;
        bp.outer_parallel = threads > 1 && (g.n % threads == 0 || g.n >= 4 * threads) && g.flops() >= kMinParallelFlops;
        bp.workers = bp.outer_parallel ? static_cast<int>(std::min<int64_t>({threads, g.n, 64})) : 1;
        const ExecContext inner{bp.outer_parallel ? 1 : threads};
        const int64_t m = pl.channels_last ? pl.plane_pixels : g.icg, n = pl.channels_last ? g.icg : pl.plane_pixels;
        bp.gemm_ws_bytes = ws_size(inner, m, n, pl.taps * g.ocg);
        // As the forward's: the filter packed once when more than one image
        // reads it.
        if (g.n > 1)
            bp.wpk_group_elems = conv_packed_filter_elems(h.isa, g.compute, pl.channels_last, g.icg, pl.taps * g.ocg);
        const std::size_t per_worker =
            image_bytes + 2 * round64(static_cast<std::size_t>(pl.taps) * sizeof(void *)) + round64(bp.gemm_ws_bytes);
        bp.workspace_bytes = 64 + round64(static_cast<std::size_t>(pl.wr_elems) * esize) +
                             round64(static_cast<std::size_t>(g.groups * bp.wpk_group_elems) * esize) +
                             static_cast<std::size_t>(bp.workers) * per_worker;
        return kSuccess;
    }
    bp.images = image_bytes == 0 ? g.n
                                 : std::clamp<int64_t>(static_cast<int64_t>(kFilterBatchBytes / image_bytes), 1, g.n);
    bp.merge_w_taps = (pl.channels_last || g.icg == 1) && pl.w_direct && !g.flip && g.groups == 1 &&
                      g.k[2] > 1 && g.stride[2] == 1 && g.dil[2] == 1 && g.ws[4] == g.icg;
    const int64_t gemms = bp.merge_w_taps ? g.k[0] * g.k[1] : g.groups * pl.taps;
    const int64_t gemm_n = bp.merge_w_taps ? g.k[2] * g.icg : g.icg;
    // Few GEMMs (a 1x1 filter is one, a 7x7 first layer's rows seven) split
    // their reduction, the pixels, into k_parts summed in part order: the
    // number of parts depends on the problem alone, so the sum's order, and
    // its bits, do not depend on the thread count. Whole GEMMs per thread
    // then (their C, K x C, is small next to their reduction): a GEMM split
    // along its small C packs its long operands once per thread.
    // About kFilterItems work items (as many per thread on 2, 3, 4 or 6
    // threads: ResNet-50's 3x3 stride-2 layers, 3 GEMMs in 3 parts, left a
    // thread of 2 idle a tenth of the time); each part at least
    // kFilterMinPartPixels over the batch's images and a pixel of each, the
    // partial sums within kFilterMaxPartialBytes. Single GEMMs split over the
    // threads packed all of dy on every thread.
    // Channels first with several taps and images of at least half a
    // reduction block (pixel_ranges): an item is a part of a group's pixels
    // for all of its taps.
    const int64_t kc = g.compute == ANYDNN_DATA_DOUBLE ? gemm_kernels<double>(h.isa).blocking.kc
                                                       : gemm_kernels<float>(h.isa).blocking.kc;
    const bool long_images = !pl.channels_last && 2 * pl.m_virtual >= kc;
    const bool tap_ranges = long_images && pl.taps > 1 && !bp.merge_w_taps;
    const int64_t units = tap_ranges ? g.groups : gemms;
    const bool split = units < kFilterItems && g.flops() >= 1e6;
    if (split) {
        const int64_t sums_bytes = gemms * g.ocg * gemm_n * static_cast<int64_t>(esize);
        bp.k_parts = std::min({(kFilterItems + units - 1) / units, bp.images * pl.m_virtual / kFilterMinPartPixels,
                               pl.m_virtual, static_cast<int64_t>(kFilterMaxPartialBytes) / sums_bytes});
        bp.k_parts = std::max<int64_t>(bp.k_parts, 1);
    }
    bp.partial_elems = bp.k_parts > 1 ? gemms * bp.k_parts * g.ocg * gemm_n : 0;
    const int64_t x_image = pl.x_direct ? g.xs[0] : pl.image_elems, dy_image = bp.dy_direct ? g.ys[0] : bp.dy_image_elems;
    bp.images_back_to_back = pl.channels_last && x_image == pl.m_virtual * pl.pix_stride &&
                             dy_image == pl.m_virtual * bp.dy_pix_stride;
    const bool one_tap = pl.taps == 1 && pl.phases == 1 && pl.tap_pixel[0] == 0;
    bp.pixel_ranges = (one_tap && (bp.images_back_to_back || long_images)) || (tap_ranges && bp.k_parts > 1);
    bp.swap_filter_gemm = bp.pixel_ranges && !pl.channels_last && bp.k_parts > 1 && (g.icg > g.ocg || pl.taps > 1);
    if (bp.pixel_ranges && pl.taps > 1) {
        const auto packed_b_size = g.compute == ANYDNN_DATA_DOUBLE ? gemm_kernels<double>(h.isa).packed_b_size
                                                                   : gemm_kernels<float>(h.isa).packed_b_size;
        bp.dyt_pack_elems = static_cast<int64_t>(round64(packed_b_size(g.ocg, pl.m_virtual)) / esize);
    } else if (gemms > g.groups) {
        const auto packed_a_size = g.compute == ANYDNN_DATA_DOUBLE ? gemm_kernels<double>(h.isa).packed_a_size
                                                                   : gemm_kernels<float>(h.isa).packed_a_size;
        const int64_t part_pixels = (pl.m_virtual + bp.k_parts - 1) / bp.k_parts;
        bp.dy_pack_elems = static_cast<int64_t>(round64(packed_a_size(g.ocg, bp.images * part_pixels)) / esize);
    }
    // Items: a part of a GEMM, or with pixel_ranges a part of a group (all its taps).
    bp.outer_parallel = threads > 1 && (bp.pixel_ranges ? g.groups : gemms) * bp.k_parts >= 2 * threads &&
                        g.flops() >= 1e6;
    bp.workers = bp.outer_parallel ? std::min(threads, 64) : 1;
    const ExecContext inner{bp.outer_parallel ? 1 : threads};
    const int64_t kt = bp.images * pl.m_virtual;
    bp.gemm_ws_bytes = bp.swap_filter_gemm ? ws_size(inner, gemm_n, g.ocg, kt) : ws_size(inner, g.ocg, gemm_n, kt);
    const std::size_t per_worker = 2 * round64(static_cast<std::size_t>(bp.images) * sizeof(void *)) +
                                   round64(bp.gemm_ws_bytes) + static_cast<std::size_t>(bp.dyt_pack_elems) * esize;
    bp.workspace_bytes = 64 + round64(static_cast<std::size_t>(pl.wr_elems) * esize) +
                         round64(static_cast<std::size_t>(bp.partial_elems) * esize) +
                         static_cast<std::size_t>(g.groups * bp.k_parts * bp.dy_pack_elems) * esize +
                         static_cast<std::size_t>(bp.images) * image_bytes +
                         static_cast<std::size_t>(bp.workers) * per_worker;
    return kSuccess;
}

// The im2col paths of ALGO_1 (ConvBackwardPlan::im2col_cols) take one group
// of C * k[2] <= kConvIm2colRowCols columns per filter row and C * taps <=
// kConvIm2colMaxCols in all, in the compute type, dy's pixels packed in each
// image with its channels contiguous (NHWC) or its pixels (NCHW); backward
// data's also an image of dx in at most kIm2colMaxImageBytes (its sums).
constexpr std::size_t kIm2colMaxImageBytes = std::size_t{64} << 20;

bool plan_im2col(const Handle &h, const ops::ConvBackwardProblem &p, Direction dir, ConvBackwardPlan *out) {
    const ops::ConvGeometry &g = p.geo;
    const int64_t cols = g.icg * g.taps();
    if (g.groups != 1 || g.dt != g.compute || g.icg * g.k[2] > kConvIm2colRowCols || cols > kConvIm2colMaxCols)
        return false;
    const bool nhwc = g.ys[1] == 1 && conv_packed_spatial(g.out, g.ys, g.ys[4]);
    const bool nchw = g.ys[4] == 1 && conv_packed_spatial(g.out, g.ys, 1);
    if (!nhwc && !nchw) return false;
    const std::size_t esize = dtype_size(g.compute);
    const int64_t image_elems = g.icg * g.in[0] * g.in[1] * g.in[2];
    if (dir == Direction::data && static_cast<std::size_t>(image_elems) * esize > kIm2colMaxImageBytes) return false;
    ConvBackwardPlan &bp = *out;
    bp = ConvBackwardPlan{};
    const bool f64 = g.compute == ANYDNN_DATA_DOUBLE;
    const GemmKernels<double> &k64 = gemm_kernels<double>(h.isa);
    const GemmKernels<float> &k32 = gemm_kernels<float>(h.isa);
    const GemmBlocking &blk = f64 ? k64.blocking : k32.blocking;
    const auto ws_size = f64 ? k64.workspace_size : k32.workspace_size;
    const int64_t pixels = g.out_pixels();
    bp.im2col_cols = cols;
    bp.im2col_chunks = (pixels + blk.kc - 1) / blk.kc;
    bp.im2col_chunk = (pixels + bp.im2col_chunks - 1) / bp.im2col_chunks;
    const int threads = h.threads();
    std::size_t per_worker = 0;
    if (dir == Direction::filter) {
        // Parts fixed by the problem (the sum's order).
        bp.k_parts = std::min(kIm2colFilterParts, g.n * bp.im2col_chunks);
        bp.partial_elems = bp.k_parts * g.ocg * cols;
        bp.outer_parallel = threads > 1 && bp.k_parts > 1 && g.flops() >= 1e6;
        bp.workers = bp.outer_parallel ? static_cast<int>(std::min<int64_t>({threads, bp.k_parts, 64})) : 1;
        bp.gemm_ws_bytes = ws_size(ExecContext{1}, g.ocg, cols, bp.im2col_chunk);
        const int64_t packed_x = (cols + blk.nr - 1) / blk.nr * blk.nr * bp.im2col_chunk;
        if (g.icg > 1 && g.xs[4] == 1 && conv_packed_spatial(g.in, g.xs, 1)) bp.im2col_x_image = image_elems;
        per_worker = round64(static_cast<std::size_t>(packed_x) * esize) +
                     round64(static_cast<std::size_t>(bp.im2col_x_image) * esize);
    } else {
        // Whole images per worker (each dx element summed by one thread in
        // pixel order); with fewer images than threads, the GEMMs split.
        bp.outer_parallel = threads > 1 && g.n >= threads && g.flops() >= 1e6;
        bp.workers = bp.outer_parallel ? std::min(threads, 64) : 1;
        bp.gemm_ws_bytes = ws_size(ExecContext{bp.outer_parallel ? 1 : threads}, bp.im2col_chunk, cols, g.ocg);
        bp.wpk_group_elems = static_cast<int64_t>((f64 ? k64.packed_b_size : k32.packed_b_size)(cols, g.ocg) / esize);
        per_worker = round64(static_cast<std::size_t>(image_elems) * esize) +
                     round64(static_cast<std::size_t>(bp.im2col_chunk * cols) * esize);
    }
    bp.workspace_bytes = 64 + round64(static_cast<std::size_t>(bp.partial_elems) * esize) +
                         (dir == Direction::data ? round64(static_cast<std::size_t>(g.ocg * cols) * esize) : 0) +
                         round64(static_cast<std::size_t>(bp.wpk_group_elems) * esize) +
                         static_cast<std::size_t>(bp.workers) * (per_worker + round64(bp.gemm_ws_bytes));
    return true;
}

// ALGO_1's problem and plan: p on conv_gemm_geometry; backward filter
// unfolded along w (conv_unfold.hpp) when its row taps do not merge in
// place (a stride or dilation along w, CONVOLUTION mode): ResNet-50's conv1
// ran 49 GEMMs of 3 columns, unfolded it runs 7 of 21. x' then comes first
// in the workspace.
struct GemmPlan {
    ops::ConvBackwardProblem run;
    std::optional<ConvUnfold> unfold;
    ConvBackwardPlan bp;
};

Status plan_gemm(const Handle &h, const ops::ConvBackwardProblem &p, Direction dir, GemmPlan *out) {
    out->run = gemm_problem(p);
    if (plan_im2col(h, out->run, dir, &out->bp)) return kSuccess;
    const std::optional<ops::ConvGeometry> copies =
        dir == Direction::data ? conv_channels_last_copies(out->run.geo) : std::nullopt;
    if (copies) out->run.geo = *copies;
    ANYDNN_TRY(plan_backward(h, out->run, dir, &out->bp));
    if (copies) {
        ConvBackwardPlan &bp = out->bp;
        const ops::ConvGeometry &q = *copies;
        bp.copy_dy_elems = q.n * q.groups * q.ocg * q.out_pixels();
        bp.copy_dx_elems = q.n * q.groups * q.icg * q.in_pixels();
        const std::size_t esize = dtype_size(q.compute);
        bp.workspace_bytes += 64 + round64(static_cast<std::size_t>(bp.copy_dy_elems) * esize) +
                              round64(static_cast<std::size_t>(bp.copy_dx_elems) * esize);
    }
    if (dir == Direction::data || out->bp.merge_w_taps) return kSuccess;
    out->unfold = conv_w_unfold(out->run.geo);
    if (!out->unfold) return kSuccess;
    out->run.geo = out->unfold->geo;
    return plan_backward(h, out->run, dir, &out->bp);
}

// Backward data of a stride-1 convolution is a forward one: dx = alpha *
// (dy cross-correlated with the filter turned by 180 degrees, its K and C
// swapped, padded k - 1 - pad) + beta * dx. WINOGRAD_NONFUSED runs it so,
// reading the filter in place through the swapped strides and the flipped
// mode. One group only: a group's block of C would have to be a block of
// the filter's K.
std::optional<ops::ConvForwardProblem> data_as_forward(const ops::ConvBackwardProblem &p) {
    const ops::ConvGeometry &g = p.geo;
    if (g.groups != 1) return std::nullopt;
    for (int i = 0; i < 3; ++i)
        if (g.stride[i] != 1 || g.pad[i] > (g.k[i] - 1) * g.dil[i]) return std::nullopt;
    ops::ConvForwardProblem f;
    f.alpha = p.alpha;
    f.beta = p.beta;
    ops::ConvGeometry &q = f.geo;
    q = g;
    q.icg = g.ocg;
    q.ocg = g.icg;
    q.flip = !g.flip;
    for (int i = 0; i < 3; ++i) {
        q.in[i] = g.out[i];
        q.out[i] = g.in[i];
        q.pad[i] = (g.k[i] - 1) * g.dil[i] - g.pad[i];
    }
    for (int j = 0; j < 5; ++j) {
        q.xs[j] = g.ys[j];
        q.ys[j] = g.xs[j];
    }
    q.ws[0] = g.ws[1];  // the forward's output channel is dx's channel c
    q.ws[1] = g.ws[0];  // and its input channel dy's channel k
    return f;
}

// WINOGRAD_NONFUSED's forward problem and plan for backward data.
Status plan_data_winograd(const Handle &h, const ops::ConvBackwardProblem &p, ops::ConvForwardProblem *f,
                          ConvWinogradPlan *pl) {
    const std::optional<ops::ConvForwardProblem> q = data_as_forward(p);
    if (!q)
        return fail(ANYDNN_STATUS_NOT_SUPPORTED,
                    "backward data WINOGRAD_NONFUSED takes one group, stride 1 and padding below the filter; this is "
                    "%s",
                    p.to_string("data").c_str());
    *f = *q;
    return plan_winograd(h, *f, pl);
}

// Tiles per block of backward filter's Winograd: their V and E (36 (icg +
// ocg) values per tile) in about 4 MiB, and at least 64 tiles and 2 icg ocg
// / (icg + ocg) (the GEMMs read and write the sums S, 36 icg ocg values,
// once per block: at least half as much traffic as V and E bring).
constexpr std::size_t kFilterWinogradBlockBytes = std::size_t{4} << 20;

// BWD_FILTER_ALGO_WINOGRAD_NONFUSED's plan (ConvWinogradFilterPlan).
Status plan_filter_winograd(const Handle &h, const ops::ConvBackwardProblem &p, ConvWinogradFilterPlan *out) {
    const ops::ConvGeometry &g = p.geo;
    ANYDNN_TRY(winograd_takes(g));
    ConvWinogradFilterPlan &pl = *out;
    pl = ConvWinogradFilterPlan{};
    const std::size_t esize = dtype_size(g.compute);
    pl.tiles_h = (g.out[1] + 3) / 4;
    pl.tiles_w = (g.out[2] + 3) / 4;
    pl.tiles = g.n * pl.tiles_h * pl.tiles_w;
    // The blocks depend on the problem alone (not on the threads): their
    // order is the order of the sum.
    const int64_t per_tile = kWinogradPoints * (g.icg + g.ocg) * static_cast<int64_t>(esize);
    const int64_t max_block = std::max<int64_t>({64, static_cast<int64_t>(kFilterWinogradBlockBytes) / per_tile,
                                                 2 * g.icg * g.ocg / (g.icg + g.ocg)});
    pl.blocks = (pl.tiles + max_block - 1) / max_block;
    pl.block = (pl.tiles + pl.blocks - 1) / pl.blocks;
    pl.block = (pl.block + 7) / 8 * 8;
    pl.blocks = (pl.tiles + pl.block - 1) / pl.block;
    const int threads = h.threads();
    pl.workers = threads > 1 && g.flops() >= 1e6 ? std::min(threads, 64) : 1;
    const auto ws_size = g.compute == ANYDNN_DATA_DOUBLE ? gemm_kernels<double>(h.isa).workspace_size
                                                         : gemm_kernels<float>(h.isa).workspace_size;
    pl.gemm_ws_bytes = ws_size(ExecContext{1}, g.ocg, g.icg, pl.block);
    pl.v_stride = winograd_point_stride(pl.block * g.icg, esize);
    pl.e_stride = winograd_point_stride(pl.block * g.ocg, esize);
    pl.s_stride = winograd_point_stride(g.ocg * g.icg, esize);
    pl.workspace_bytes = 64 + round64(static_cast<std::size_t>(g.groups * kWinogradPoints * pl.s_stride) * esize) +
                         round64(static_cast<std::size_t>(kWinogradPoints * pl.v_stride) * esize) +
                         round64(static_cast<std::size_t>(kWinogradPoints * pl.e_stride) * esize) +
                         static_cast<std::size_t>(pl.workers) * round64(pl.gemm_ws_bytes);
    return kSuccess;
}

const char *algo_name(anydnnConvolutionBwdDataAlgo_t algo) {
    switch (algo) {
    case ANYDNN_CONVOLUTION_BWD_DATA_ALGO_0: return "ALGO_0";
    case ANYDNN_CONVOLUTION_BWD_DATA_ALGO_1: return "ALGO_1";
    case ANYDNN_CONVOLUTION_BWD_DATA_ALGO_FFT: return "FFT";
    case ANYDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING: return "FFT_TILING";
    case ANYDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD: return "WINOGRAD";
    case ANYDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED: return "WINOGRAD_NONFUSED";
    default: return nullptr;
    }
}

const char *algo_name(anydnnConvolutionBwdFilterAlgo_t algo) {
    switch (algo) {
    case ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_0: return "ALGO_0";
    case ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_1: return "ALGO_1";
    case ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT: return "FFT";
    case ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_3: return "ALGO_3";
    case ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD: return "WINOGRAD";
    case ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED: return "WINOGRAD_NONFUSED";
    case ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING: return "FFT_TILING";
    default: return nullptr;
    }
}

// ALGO_0 takes every problem without workspace, ALGO_1 what the planes
// take, WINOGRAD_NONFUSED the 3x3 stride-1 ones (plan_data_winograd,
// plan_filter_winograd); the rest is not implemented.
template <class Algo>
Status backward_workspace(const Handle &h, const ops::ConvBackwardProblem &p, Direction dir, Algo algo,
                          std::size_t *bytes) {
    const char *name = algo_name(algo);
    if (name == nullptr)
        return fail(ANYDNN_STATUS_BAD_PARAM, "algo %d is not a backward %s algorithm", static_cast<int>(algo),
                    dir == Direction::data ? "data" : "filter");
    if (static_cast<int>(algo) == 0) {
        *bytes = 0;
        return kSuccess;
    }
    if (dir == Direction::data && static_cast<int>(algo) == ANYDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED) {
        ops::ConvForwardProblem f;
        ConvWinogradPlan pl;
        ANYDNN_TRY(plan_data_winograd(h, p, &f, &pl));
        *bytes = pl.workspace_bytes;
        return kSuccess;
    }
    if (dir == Direction::filter && static_cast<int>(algo) == ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED) {
        ConvWinogradFilterPlan pl;
        ANYDNN_TRY(plan_filter_winograd(h, p, &pl));
        *bytes = pl.workspace_bytes;
        return kSuccess;
    }
    if (static_cast<int>(algo) == 1) {
        GemmPlan gp;
        ANYDNN_TRY(plan_gemm(h, p, dir, &gp));
        *bytes = conv_unfold_workspace(gp.unfold) + gp.bp.workspace_bytes;
        return kSuccess;
    }
    return fail(ANYDNN_STATUS_NOT_SUPPORTED, "backward %s %s is not implemented on the CPU backend",
                dir == Direction::data ? "data" : "filter", name);
}

// BWD_FILTER_ALGO_WINOGRAD_NONFUSED's model, in the units of
// backward_cost: the 36 GEMMs per group (36 icg ocg MACs per tile, the
// tiles' outputs past the edge included, at the GEMM's speed) and a pass
// over the sums S (36 icg ocg values) per block, plus the final transform,
// together worth about 23 tiles of MACs with one block (fitted on ResNet-50
// res5 at mb1, 2 threads: 4 tiles per image, 2.7 ms against ALGO_1's 1.2;
// at mb16, 64 tiles, 8.9 against 17.3), plus the transforms as the
// forward's model has them. Channel counts below 16 make GEMMs of a few
// rows or columns that the direct loops beat (depthwise: one channel).
double winograd_filter_cost(const ops::ConvGeometry &g, const ConvWinogradFilterPlan &pl) {
    if (std::min(g.icg, g.ocg) < 16) return g.flops() * 64;
    constexpr double kSumsPassTiles = 12, kFinalTiles = 11;
    const double icg = static_cast<double>(g.icg), ocg = static_cast<double>(g.ocg);
    const double groups = static_cast<double>(g.groups), tiles = static_cast<double>(pl.tiles);
    const double eff = std::min(1.0, std::min(icg, ocg) / 64.0);
    const double gemm = 2.0 * groups * 36 * icg * ocg *
                        (tiles + kSumsPassTiles * static_cast<double>(pl.blocks) + kFinalTiles) / eff;
    const double transforms = 4.0 * groups * tiles * 36 * (icg + ocg) * 2;
    return gemm + transforms;
}

// The model, in the forward's units: the GEMM at 1 when its short side is
// 16 or more, slower below (depthwise: a GEMM per group of 1 channel, far
// slower than the direct loops at 1/20).
double backward_cost(const Handle &h, const ops::ConvBackwardProblem &p, Direction dir, int algo) {
    const ops::ConvGeometry &g = p.geo;
    const double flops = g.flops();
    if (dir == Direction::data && algo == ANYDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED) {
        const std::optional<ops::ConvForwardProblem> f = data_as_forward(p);
        ConvWinogradPlan pl;
        return f && plan_winograd(h, *f, &pl) == kSuccess ? winograd_cost(f->geo, pl) : flops * 20;
    }
    if (dir == Direction::filter && algo == ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED) {
        ConvWinogradFilterPlan pl;
        return plan_filter_winograd(h, p, &pl) == kSuccess ? winograd_filter_cost(g, pl) : flops * 20;
    }
    if (algo != 1) return flops * 20;
    if (g.icg == 1 && g.groups > 1) return flops * 64;
    GemmPlan gp;
    plan_gemm(h, p, dir, &gp);
    const ops::ConvBackwardProblem &q = gp.run;
    const ConvBackwardPlan &bp = gp.bp;
    // The GEMM's short side: data m = pixels, n = C, k = K; filter m = K, n = C (times the merged taps, or
    // every tap with im2col).
    const int64_t n = bp.im2col_cols ? bp.im2col_cols : q.geo.icg * (bp.merge_w_taps ? q.geo.k[2] : 1);
    const int64_t narrow = std::min(n, q.geo.ocg);
    const double junk = static_cast<double>(bp.planes.plane_pixels) / static_cast<double>(q.geo.out_pixels());
    return flops * std::max(1.0, junk) / std::min(1.0, static_cast<double>(narrow) / 16.0);
}

}  // namespace

Status conv_bwd_data_workspace(const Handle &h, const ops::ConvBackwardProblem &p,
                               anydnnConvolutionBwdDataAlgo_t algo, std::size_t *bytes) {
    return backward_workspace(h, p, Direction::data, algo, bytes);
}

Status conv_bwd_filter_workspace(const Handle &h, const ops::ConvBackwardProblem &p,
                                 anydnnConvolutionBwdFilterAlgo_t algo, std::size_t *bytes) {
    return backward_workspace(h, p, Direction::filter, algo, bytes);
}

void execute_conv_bwd_data(const Handle &h, const ops::ConvBackwardProblem &p, anydnnConvolutionBwdDataAlgo_t algo,
                           const ConvBwdDataOperands &o, void *workspace) {
    const ConvBwdDataKernels &k = conv_bwd_data_kernels(h.isa);
    const ExecContext ctx{h.threads()};
    if (algo == ANYDNN_CONVOLUTION_BWD_DATA_ALGO_1) {
        GemmPlan gp;
        plan_gemm(h, p, Direction::data, &gp);
        k.gemm(ctx, gp.run, gp.bp, o, workspace);
    } else if (algo == ANYDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED) {
        ops::ConvForwardProblem f;
        ConvWinogradPlan pl;
        plan_data_winograd(h, p, &f, &pl);
        conv_winograd_kernels(h.isa).run(ctx, f, pl, ConvOperands{o.dy, o.w, nullptr, nullptr, o.dx}, workspace);
    } else {
        k.direct(ctx, p, o);
    }
}

void execute_conv_bwd_filter(const Handle &h, const ops::ConvBackwardProblem &p,
                             anydnnConvolutionBwdFilterAlgo_t algo, const ConvBwdFilterOperands &o, void *workspace) {
    const ConvBwdFilterKernels &k = conv_bwd_filter_kernels(h.isa);
    const ExecContext ctx{h.threads()};
    if (algo == ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_1) {
        GemmPlan gp;
        plan_gemm(h, p, Direction::filter, &gp);
        ConvBwdFilterOperands ro = o;
        ro.x = conv_unfolded_x(ctx, gp.unfold, o.x, workspace);
        k.gemm(ctx, gp.run, gp.bp, ro, static_cast<char *>(workspace) + conv_unfold_workspace(gp.unfold));
    } else if (algo == ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED) {
        ConvWinogradFilterPlan pl;
        plan_filter_winograd(h, p, &pl);
        conv_winograd_bwd_filter_kernels(h.isa).run(ctx, p, pl, o, workspace);
    } else {
        k.direct(ctx, p, o);
    }
}

void rank_conv_bwd_data_algos(const Handle &h, const ops::ConvBackwardProblem &p, anydnnMathType_t math,
                              ConvBwdDataAlgoChoice *out) {
    rank_by_model(
        out, ANYDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, math,
        [&](anydnnConvolutionBwdDataAlgo_t algo, std::size_t *bytes) {
            return conv_bwd_data_workspace(h, p, algo, bytes);
        },
        [&](anydnnConvolutionBwdDataAlgo_t algo) { return backward_cost(h, p, Direction::data, algo); });
}

void rank_conv_bwd_filter_algos(const Handle &h, const ops::ConvBackwardProblem &p, anydnnMathType_t math,
                                ConvBwdFilterAlgoChoice *out) {
    rank_by_model(
        out, ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, math,
        [&](anydnnConvolutionBwdFilterAlgo_t algo, std::size_t *bytes) {
            return conv_bwd_filter_workspace(h, p, algo, bytes);
        },
        [&](anydnnConvolutionBwdFilterAlgo_t algo) { return backward_cost(h, p, Direction::filter, algo); });
}

void find_conv_bwd_data_algos(const Handle &h, const ops::ConvBackwardProblem &p, anydnnMathType_t math,
                              const ConvBwdDataOperands &o, void *workspace, std::size_t ws_bytes,
                              ConvBwdDataAlgoChoice *out) {
    rank_conv_bwd_data_algos(h, p, math, out);
    time_and_sort(out, ANYDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, ws_bytes,
                  [&](anydnnConvolutionBwdDataAlgo_t algo) { execute_conv_bwd_data(h, p, algo, o, workspace); });
}

void find_conv_bwd_filter_algos(const Handle &h, const ops::ConvBackwardProblem &p, anydnnMathType_t math,
                                const ConvBwdFilterOperands &o, void *workspace, std::size_t ws_bytes,
                                ConvBwdFilterAlgoChoice *out) {
    rank_conv_bwd_filter_algos(h, p, math, out);
    time_and_sort(out, ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, ws_bytes,
                  [&](anydnnConvolutionBwdFilterAlgo_t algo) { execute_conv_bwd_filter(h, p, algo, o, workspace); });
}

}  // namespace anydnn::cpu
