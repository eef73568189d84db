// The convolution kernel families: forward convolution by the batch-reduce
// GEMM over filter taps (IMPLICIT_PRECOMP_GEMM), by direct loops
// (IMPLICIT_GEMM) and by depthwise direct loops (DIRECT); backward data and
// backward filter by batch-reduce GEMMs on the same planes (ALGO_1) and by
// direct loops (ALGO_0). Declarations and the plans that
// src/cpu/conv_exec.cpp and conv_bwd_exec.cpp compute once per call;
// src/cpu/kernels/conv{,_bwd_data,_bwd_filter}.hpp implement them once per
// ISA level.
// docs/ARCHITECTURE.md ("Convolution") explains the stride-deinterleaved
// planes and why they make every stride, dilation and padding one GEMM.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "cpu/isa_table.hpp"
#include "cpu/parallel.hpp"
#include "ops/conv_problem.hpp"

namespace anydnn::cpu {

constexpr int kConvMaxTaps = 512;    // taps a plan records (larger filters: IMPLICIT_GEMM only)
constexpr int kConvMaxStride = 64;  // likewise for strides

// How IMPLICIT_PRECOMP_GEMM runs one problem. The input of each image is
// copied (zero-padded, converted to the compute type) into "planes": for a
// stride s, plane a of a dimension holds the padded positions u = r * s + a,
// r < L. Then tap k reads plane (k * dil) % s at offset (k * dil) / s, so for
// every stride and dilation each tap's input is one matrix whose rows are
// the output pixels, with a constant leading dimension, when pixels are
// numbered i = (od * L[1] + oh) * L[2] + ow over the planes' extents. Pixels
// with oh >= out[1] or ow >= out[2] are computed and dropped (the "junk").
struct ConvPrecompPlan {
    bool channels_last = false;  // the planes' (and x's) orientation: [pixel][ic], else [ic][pixel]
    // The forward's product: C[oc][pixel] = W X (the filter is A), else
    // C[pixel][oc] = X W^T. Channels first always; channels last on small
    // images under a large filter, read in place (forward_filter_a).
    bool filter_a = false;
    int64_t L[3] = {1, 1, 1};    // plane extents
    int64_t plane_pixels = 1;
    int64_t residues[3] = {1, 1, 1};  // used residues per dimension (phases = their product)
    int64_t residue_of[3][kConvMaxStride] = {};     // residue a -> phase index along the dimension
    int64_t residue_value[3][kConvMaxStride] = {};  // and back
    int64_t phases = 1;
    int64_t taps = 1;
    // Per tap (kd, kh, kw) in x order: phase and pixel offset of its input,
    // element offset of its filter tap (flipped for CONVOLUTION) in w.
    int64_t tap_phase[kConvMaxTaps] = {}, tap_pixel[kConvMaxTaps] = {}, tap_w[kConvMaxTaps] = {};
    // The planes: element strides between pixels, channels and phases.
    bool x_direct = false;  // the planes are x itself (stride 1, no padding, matching layout and type)
    int64_t pix_stride = 1, chan_stride = 1, phase_stride = 0;
    int64_t image_elems = 0;  // elements of one image's planes (0 when x_direct)
    // The filter: used in place (w_direct: C stride 1, compute type) or
    // reordered into [group][tap][oc][ic].
    bool w_direct = false;
    // The reordered filter as [group][oc][tap][ic] (the forward's filter_a:
    // an output channel's taps side by side, read in place as A), else
    // [group][tap][oc][ic].
    bool wr_taps_inner = false;
    int64_t w_ld = 0;         // leading dimension of a tap's ocg x icg matrix
    int64_t wr_elems = 0;     // reordered filter elements
    // Forward: the filter (B of every image's GEMMs, or A with filter_a)
    // packed once per call for the GEMM engine (GemmKernels::pack_b /
    // pack_a), elements per group; 0 when a single GEMM uses it (it then
    // packs the filter itself) and when the filter as A is read in place
    // (channels last).
    int64_t wpk_group_elems = 0;
    int64_t m_virtual = 0;    // pixel numbers computed per image: [0, m_virtual)
    // Forward channels last with few input channels (a first layer): no
    // planes; each chunk's receptive fields are gathered (im2col) into a
    // row-major matrix of im2col_ld >= im2col_cols = C * taps columns, one
    // GEMM per chunk. L is then the output (no junk pixels).
    int64_t im2col_cols = 0, im2col_ld = 0;
    // Forward, one small image (forward_b_gather): the filter as A read in
    // place in its own reduction order (KRSC's tap-major channels last,
    // KCRS's channel-major channels first), and B the planes' pixels
    // gathered by offsets straight into the GEMM's packed layout
    // (GemmKernels::pack_b_gather): no filter reorder, no transposes of x
    // or y, no junk pixels (L stays the planes'; the GEMM's columns are
    // y's pixels, m_virtual of them). b_gather_bytes: the offsets and the
    // packed B, once in the workspace after the worker's.
    bool b_gather = false;
    std::size_t b_gather_bytes = 0;
    // Forward, few output pixels under a large filter (forward_pixel_dots,
    // kernels/util/gemm_dots.hpp): y's pixels by the filter's output
    // channels as dot products of x's pixel rows (each output pixel's
    // receptive field in the filter's reduction order, dots_ld apart: copied
    // in, first in the workspace, or a 1x1's x itself: x_direct) with the
    // filter's rows read in place, their sums in the workspace.
    // dots_taps_inner: the order is KCRS's (channel, tap), else KRSC's (tap,
    // channel). Nothing else of the plan is used.
    bool pixel_dots = false;
    bool dots_taps_inner = false;
    int64_t dots_ld = 0;
    // Forward channels first on small images (conv_channels_last_copies):
    // the plan is the channels-last geometry's, run on copies of x and y
    // (these elements of x's type, first in the workspace): x transposed in,
    // y in too when beta (or z = y) blends it, y transposed back out.
    int64_t copy_x_elems = 0, copy_y_elems = 0;
    // The forward's GEMMs.
    bool y_direct = false;    // the GEMM writes y (no junk, matching layout and type)
    int64_t chunk = 0;        // pixels per GEMM call
    int64_t scratch_elems = 0;  // per worker, 0 when y_direct
    bool outer_parallel = false;  // workers take whole images, each GEMM single-threaded
    int workers = 1;
    std::size_t gemm_ws_bytes = 0;  // per worker
    std::size_t workspace_bytes = 0;
};

// Elements of one group's filter packed for the GEMM engine in the compute
// type: as B of `width` columns (filter_is_b) or as A of `width` rows, over
// a reduction of k_total (GemmKernels::packed_b_size / packed_a_size).
int64_t conv_packed_filter_elems(Isa isa, anydnnDataType_t compute, bool filter_is_b, int64_t width,
                                 int64_t k_total);

// Whether the spatial dimensions (d, h, w extents ext, element strides
// s[2..4]) are packed with the w stride `inner`: a dimension of extent 1 may
// have any stride.
bool conv_packed_spatial(const int64_t *ext, const int64_t *s, int64_t inner);

// A convolution whose single output pixel reads its whole input (a fully
// connected layer written as a convolution: out = 1, pad 0, in = k in every
// dimension, one group, no flip), with x's and w's (c, d, h, w) laid out
// alike and packed, is one GEMM over the images: N pixels of C * taps
// channels, the image stride as the pixel stride. *out is that 1 x 1
// geometry (g itself otherwise); the GEMM algorithms plan and run on it,
// which turns N per-image matrix-vector products into one GEMM.
ops::ConvGeometry conv_gemm_geometry(const ops::ConvGeometry &g);

// The channels-last geometry of g's packed channels-first x and y when
// the GEMM algorithms run channels first on small images better on
// channels-last copies (forward and backward data), else nullopt.
std::optional<ops::ConvGeometry> conv_channels_last_copies(const ops::ConvGeometry &g);

// The geometry part of a plan, shared by the three directions: planes,
// residues, taps, x in place, the filter's reorder, m_virtual.
// NOT_SUPPORTED (with a message) beyond kConvMaxTaps or kConvMaxStride.
Status plan_conv_planes(const ops::ConvGeometry &g, ConvPrecompPlan *pl);

// The im2col paths (ConvPrecompPlan::im2col_cols forward,
// ConvBackwardPlan::im2col_cols backward) take one group of at most
// kConvIm2colRowCols columns (C * k[2]) per filter row and at most
// kConvIm2colMaxCols (C * taps) in all.
constexpr int64_t kConvIm2colRowCols = 32;
constexpr int64_t kConvIm2colMaxCols = 512;

// The pixel_dots path takes at most kPixelDotsMaxPixels output pixels (all
// images: x's rows stay in L2 while the filter streams once) and a
// reduction (C x taps) of at least kPixelDotsMinReduction (shorter, the
// lanes' folds at each tile's end cost more than the GEMM's pack of the
// filter: MobileNet-v2's b15_expand, 160 channels, ran 5% slower by dot
// products standalone; its b15_project, 960, 17% faster in the library).
constexpr int64_t kPixelDotsMaxPixels = 64;
constexpr int64_t kPixelDotsMinReduction = 256;

// How the backward GEMM algorithms (BWD_DATA_ALGO_1, BWD_FILTER_ALGO_1) run.
// Backward data: dx's planes are the GEMM's output, plane pixel j of the
// phase of tap t summing dy pixel j - tap_pixel[t] times W_t^T over the taps
// of that phase (one batch-reduce GEMM per phase); then dx is read out of
// the planes. Backward filter: dW_t = dy^T X_t over the pixels of every
// image, one batch-reduce GEMM per tap with the images as its batch.
// Both read dy on the planes' pixel grid (pixel i = (od * L1 + oh) * L2 +
// ow), zero at junk pixels and around: the "dy grid".
struct ConvBackwardPlan {
    ConvPrecompPlan planes;   // dx's (data) or x's (filter) planes, the filter reorder
    bool dy_direct = false;   // the dy grid is dy itself (no junk, no margin, matching layout and type)
    int64_t dy_front = 0;     // zero pixels before grid pixel 0 (data: the largest tap_pixel)
    int64_t dy_pixels = 0;    // grid pixels per image, the front included
    int64_t dy_pix_stride = 1, dy_chan_stride = 1;
    int64_t dy_image_elems = 0;  // per image, 0 when dy_direct
    // Data, channels first on small images with several taps: the problem
    // runs channels last on copies (dy transposed in, dx out), whose
    // elements come first in the workspace (plan_gemm's channels_last_copies).
    int64_t copy_dy_elems = 0, copy_dx_elems = 0;
    int64_t images = 1;          // filter: images per batch-reduce GEMM (fixed by memory, not threads)
    // Filter: the k[2] taps of a filter row in one GEMM. With stride and
    // dilation 1 along w and one group, tap kw's input is the kw = 0 tap's
    // shifted by kw pixels: channels last, by kw * C elements, so the row's
    // taps side by side are one matrix of k[2] * C columns with leading
    // dimension C (overlapping rows); channels first with C = 1 (a first
    // layer), by kw elements: k[2] rows with leading dimension 1. The row's
    // filter gradient, K x k[2] * C, is then the filter's own memory (KRSC,
    // or any layout when C = 1), and dy is packed once per filter row
    // instead of once per tap.
    bool merge_w_taps = false;
    // Filter: each GEMM's pixels in k_parts parts (fixed by the problem),
    // summed into partial ([gemm][part][K][n], partial_elems) and added in
    // part order.
    int64_t k_parts = 1;
    int64_t partial_elems = 0;
    // Filter, several GEMMs per group (the taps of a strided filter): dy of
    // each group and part packed once (GemmKernels::pack_a) for all of its
    // taps' GEMMs, dy_pack_elems per group and part (else 0).
    int64_t dy_pack_elems = 0;
    // Filter, 1x1 (taps 1, pixel_ranges): each part a range of the chunk's
    // pixels, image after image, not the same pixels of every image: one
    // GEMM per image it spans, its larger operand read in place by the
    // tiles (not packed), and only one GEMM when the images lie back to
    // back in x (or its planes) and dy, channels last (dy^T read in place,
    // TileA::steps). Channels first when images have at least half a
    // reduction block of pixels (each GEMM reads and writes all of C: on
    // 7x7 images 15% slower than the batch-reduce); with more input than
    // output channels the GEMMs compute dW^T = x dy^T (swap_filter_gemm;
    // x's rows in place) and the sum of the parts transposes it. Channels
    // first with several taps (a strided 3x3, more than one part): always
    // dW_t^T = x_t dy^T, each image's dy^T packed once (dyt_pack_elems per
    // worker) for all taps, x_t's rows read in place: no transposed x.
    bool pixel_ranges = false, images_back_to_back = false, swap_filter_gemm = false;
    int64_t dyt_pack_elems = 0;
    // Filter, first layers (few input channels, plan_im2col): x
    // gathered per output pixel into all C * taps columns (im2col), straight
    // into the GEMM engine's packed B, for chunks of up to kc pixels of one
    // image (im2col_chunk pixels each, the last of an image shorter), and one
    // GEMM dW (K x C taps) += dy^T x' per chunk: dy read in place, and every
    // tap in one tile where the GEMM per filter row had C * k[2] columns
    // (ResNet-50's conv1: 21 of a 48-column tile, dy packed 7 times). The
    // chunks in k_parts fixed ranges, each summed into its partial and those
    // added in part order. Data, the same layers (col2im): per chunk the
    // GEMM col = dy W' (W' the filter as K x C taps, packed once per call:
    // wpk_group_elems), its rows added into an image of sums that the
    // epilogue blends into dx, a whole image per worker. im2col_cols == 0:
    // not these paths.
    int64_t im2col_cols = 0, im2col_chunk = 0, im2col_chunks = 0;  // chunks per image
    // Filter's im2col with x channels first, its pixels packed: each image
    // copied channels last first (im2col_x_image elements per worker), so
    // that the gather copies runs of C * KW values (ResNet-50's conv1 at
    // mb16: 35 -> 20.5 ms).
    int64_t im2col_x_image = 0;
    bool outer_parallel = false; // workers take whole images (data) or whole taps or parts (filter)
    // Data: the filter packed once per call (B channels last, A channels
    // first) when more than one image uses it, elements per group (else 0);
    // the taps of phase ph start at wpk_group_elems / taps * (the taps of
    // the phases before it).
    int64_t wpk_group_elems = 0;
    int workers = 1;
    std::size_t gemm_ws_bytes = 0;  // per worker
    std::size_t workspace_bytes = 0;
};

// How WINOGRAD_NONFUSED runs one problem: F(4x4, 3x3) (Lavin & Gray,
// points 0, +-1, +-2, inf) for 2-D 3x3 filters with stride and dilation 1.
// The output of each image is cut into 4x4 tiles (the last row and column
// of tiles may stick out; those outputs are dropped), tile (th, tw) reading
// the 6x6 input window at (4 th - pad_h, 4 tw - pad_w), zeros outside x.
// Per group: the filter transformed once per call, U = G g G^T, 36 icg x ocg
// matrices packed for the GEMM engine; then, per block of `block` tiles
// numbered across the images, the input transform V = B^T d B (36 matrices
// of tiles x icg), 36 GEMMs M = V U (tiles x ocg) and the output transform
// Y = A^T M A with the forward epilogue in its store.
constexpr int kWinogradPoints = 36;

struct ConvWinogradPlan {
    int64_t tiles_h = 0, tiles_w = 0;  // per image
    int64_t tiles = 0;                 // n * tiles_h * tiles_w
    int64_t block = 0;                 // tiles per block
    int64_t blocks = 0;
    int64_t wpk_elems = 0;    // one packed (group, point) matrix and its padding (a multiple of 64 bytes); 0 by_slivers
    int64_t v_stride = 0, m_stride = 0;  // elements between the points' V (block x icg) and M (block x ocg)
    bool outer_parallel = false;  // workers take whole blocks, each GEMM single-threaded
    // One block of tiles: U is never written whole; each worker transforms
    // a sliver of it at a time into its own u_stride x 36 buffer, then runs
    // the products that read it (conv_winograd.hpp).
    bool by_slivers = false;
    int64_t u_stride = 0;  // elements between the points' sliver buffers
    int workers = 1;
    // x channels first with its pixels packed: the input transform reads a
    // channels-last copy of x (x_copy_elems of x's type, first in the
    // workspace), made by blocked transposes: gathering a tile's channels a
    // plane apart took over a third of VGG-16's conv1_2 (224 x 224 x 64).
    int64_t x_copy_elems = 0;
    std::size_t gemm_ws_bytes = 0;  // per worker
    std::size_t workspace_bytes = 0;
};

// The operands of a call. Scalars are those of ConvForwardProblem.
struct ConvOperands {
    const void *x, *w, *z, *bias;
    void *y;
};

struct ConvKernels {
    void (*precomp)(const ExecContext &, const ops::ConvForwardProblem &, const ConvPrecompPlan &,
                    const ConvOperands &, void *workspace);
    void (*implicit)(const ExecContext &, const ops::ConvForwardProblem &, const ConvOperands &);
    // Depthwise (icg == 1); workspace: the filter as [tap][K] in the compute type.
    void (*depthwise)(const ExecContext &, const ops::ConvForwardProblem &, const ConvOperands &, void *workspace);
};

ANYDNN_DECLARE_ISA_TABLE(ConvKernels, conv)

struct ConvWinogradKernels {
    void (*run)(const ExecContext &, const ops::ConvForwardProblem &, const ConvWinogradPlan &, const ConvOperands &,
                void *workspace);
};
ANYDNN_DECLARE_ISA_TABLE(ConvWinogradKernels, conv_winograd)

struct ConvBwdDataOperands {
    const void *w, *dy;
    void *dx;
};
struct ConvBwdFilterOperands {
    const void *x, *dy;
    void *dw;
};

struct ConvBwdDataKernels {
    void (*gemm)(const ExecContext &, const ops::ConvBackwardProblem &, const ConvBackwardPlan &,
                 const ConvBwdDataOperands &, void *workspace);
    void (*direct)(const ExecContext &, const ops::ConvBackwardProblem &, const ConvBwdDataOperands &);
};
struct ConvBwdFilterKernels {
    void (*gemm)(const ExecContext &, const ops::ConvBackwardProblem &, const ConvBackwardPlan &,
                 const ConvBwdFilterOperands &, void *workspace);
    void (*direct)(const ExecContext &, const ops::ConvBackwardProblem &, const ConvBwdFilterOperands &);
};

ANYDNN_DECLARE_ISA_TABLE(ConvBwdDataKernels, conv_bwd_data)
ANYDNN_DECLARE_ISA_TABLE(ConvBwdFilterKernels, conv_bwd_filter)

// How BWD_FILTER_ALGO_WINOGRAD_NONFUSED runs one problem: F(4x4, 3x3) on the
// forward's tiles (ConvWinogradPlan). Y = A^T [(G g G^T) .* (B^T d B)] A is
// linear in g, so dW = G^T [sum over tiles (A dY A^T) .* (B^T d B)] G. Per
// block of `block` tiles and per group: the input transform V = B^T d B (36
// matrices of tiles x icg), the output-gradient transform E = A dY A^T (36
// of tiles x ocg; dY zero past the output's edge) and 36 GEMMs S += E^T V
// (ocg x icg each, summed over the blocks in block order); after the last
// block, dW = alpha G^T S G + beta dW. The blocks depend on the problem
// alone: their order is the order of the sum, so the bits do not depend on
// the thread count (the threads share each block's tiles in the transforms
// and its points in the GEMMs).
struct ConvWinogradFilterPlan {
    int64_t tiles_h = 0, tiles_w = 0;  // per image
    int64_t tiles = 0;                 // n * tiles_h * tiles_w
    int64_t block = 0;                 // tiles per block
    int64_t blocks = 0;
    // Elements between the points' V (block x icg), E (block x ocg) and S (ocg x icg).
    int64_t v_stride = 0, e_stride = 0, s_stride = 0;
    int workers = 1;
    std::size_t gemm_ws_bytes = 0;  // per worker
    std::size_t workspace_bytes = 0;
};

struct ConvWinogradFilterKernels {
    void (*run)(const ExecContext &, const ops::ConvBackwardProblem &, const ConvWinogradFilterPlan &,
                const ConvBwdFilterOperands &, void *workspace);
};
ANYDNN_DECLARE_ISA_TABLE(ConvWinogradFilterKernels, conv_winograd_bwd_filter)

// The depthwise kernel with x channels first where depthwise_rows and
// depthwise_blocks decline works on copies of one image: x channels last
// in x's type, and, when y is packed channels first in the compute type
// (y_back), the sums channels last and (fused or alpha/beta) channels first
// again for the epilogue, each oc x pixels, y_offset bytes from the copies'
// start.
struct DepthwiseCopies {
    bool y_back = false;
    std::size_t y_offset = 0, bytes = 0;
};
DepthwiseCopies depthwise_copies(const ops::ConvGeometry &g);

// The depthwise column strips (kernels/util/depthwise_columns.hpp), float
// channels last (x's own or the blocks' padded planes): geometries with 3
// taps along w, no dilation along w, stride 1 or 2 along w, rows of 4 or
// more pixels (strips of 4 to 8), at most 16 filter rows (kd, kh); the
// kernels also need a vector of channels.
constexpr int kDepthwiseColumnsMaxRows = 16;
constexpr int kDepthwiseColumnsTaps = 3;
constexpr int kDepthwiseColumnsMinStrip = 4, kDepthwiseColumnsMaxStrip = 8;
inline bool depthwise_columns_fit(const ops::ConvGeometry &g) {
    return g.ocg == 1 && g.k[2] == kDepthwiseColumnsTaps && g.dil[2] == 1 && (g.stride[2] == 1 || g.stride[2] == 2) &&
           g.out[2] >= kDepthwiseColumnsMinStrip && g.k[0] * g.k[1] <= kDepthwiseColumnsMaxRows;
}

// For 2-D convolutions without a channel multiplier whose x is channels
// first in the compute type with its pixels packed, the kernel works on
// blocks of `block` channels (a multiple of 16) and bands of `band` output
// rows of one image at a time, sized to fit kDepthwiseBlockBytes and to
// balance the workers' items: each worker transposes the rows a band reads
// channels last into padded rows in its own buffers (in L2), and transposes
// the sums back. False where it does not apply or the buffers would not
// fit. A worker's buffers, `block` compute-type elements per pixel
// (worker_elems): the padded planes (padded[0] x padded[1]), twice a band's
// output pixels, and the filter (a pixel per tap).
struct DepthwiseBlocks {
    int64_t block = 0, band = 0;
    int64_t padded[2] = {};  // rows and columns of a band's padded planes
    int64_t worker_elems = 0;
};
bool depthwise_blocks(const ops::ConvGeometry &g, int threads, DepthwiseBlocks *b);

// DIRECT for first layers: 2-D, one group, few input channels (C <= 4),
// 8 or more output channels, dilation 1 along w. Items are (image, band of `band` output rows); a
// worker copies the input rows its band reads into padded rows
// (padded_rows of them per channel or for all), and each strip of outputs
// sums its C * taps products in registers. y channels first (its w stride
// 1): vectors of pixels times a few output channels, x's rows split by
// column phase (stride along w) so that a tap's pixels are one vector, the
// filter broadcast; the padded rows are [c][row][phase][phase_elems].
// Otherwise: vectors of output channels times a few pixels, x broadcast,
// the padded rows [row][column][c] (a tap row's kw * C values one run). The
// filter is packed once per call, `lanes` output channels (K rounded up to
// 128 bytes, zero past K): as [tap][c][lane], or channels first as
// [block][c][tap][lane of the block] (a strip's channels contiguous).
// A worker's buffers (worker_elems compute-type elements): the padded rows,
// then the band's sums (for an epilogue that is not plain), then
// (channels first) one padded row before its split by phase.
constexpr int64_t kFewChannelsMax = 4;
constexpr int64_t kFewChannelsMaxProducts = 1024;  // C * taps
struct FewChannels {
    bool channels_first = false;
    int64_t band = 0, padded_rows = 0, row_elems = 0, phase_elems = 0, lanes = 0;
    int64_t filter_elems = 0, worker_elems = 0;
};
bool few_channels(const ops::ConvGeometry &g, int threads, FewChannels *f);
std::size_t conv_few_channels_workspace(const FewChannels &f, anydnnDataType_t compute, int threads);

struct ConvFewChannelsKernels {
    void (*run)(const ExecContext &, const ops::ConvForwardProblem &, const FewChannels &, const ConvOperands &,
                void *workspace);
};
ANYDNN_DECLARE_ISA_TABLE(ConvFewChannelsKernels, conv_few_channels)

// DIRECT for depthwise convolutions whose x rows are contiguous (x's w
// stride 1: channels first, or one channel; kernels/conv_depthwise_rows.hpp):
// 2-D, stride 1 or 2 along h and w, output rows of kDepthwiseRowsMinWidth
// pixels or more, at most kDepthwiseRowsMaxTaps taps, and the filter's
// reach along h no taller than the L1 budget's bands. Items are (image,
// channel, one of `bands` bands of `band` output rows). A worker's
// buffers (worker_elems compute-type elements): the band's padded input
// planes (stride[1] x stride[2] phases of plane_rows x pitch), `slack`
// zeros past them, at stride 2 along w one padded row before its split,
// the band's sums (band x pitch + slack) and the filter of one input
// channel's outputs.
constexpr int64_t kDepthwiseRowsMaxTaps = 64;
constexpr int64_t kDepthwiseRowsMinWidth = 32;
constexpr int kDepthwiseRowsMaxWorkers = 64;
struct DepthwiseRows {
    int64_t pitch = 0, band = 0, bands = 1, plane_rows = 0, slack = 0, worker_elems = 0;
};
bool depthwise_rows(const ops::ConvGeometry &g, int threads, DepthwiseRows *r);
std::size_t conv_depthwise_rows_workspace(const DepthwiseRows &r, anydnnDataType_t compute, int threads);

struct ConvDepthwiseRowsKernels {
    void (*run)(const ExecContext &, const ops::ConvForwardProblem &, const DepthwiseRows &, const ConvOperands &,
                void *workspace);
};
ANYDNN_DECLARE_ISA_TABLE(ConvDepthwiseRowsKernels, conv_depthwise_rows)

// Workspace of the depthwise kernel on `threads` threads: the buffers of
// each worker (depthwise_blocks), or the filter as [tap][K] in the compute
// type then, x channels first, the copies of depthwise_copies.
std::size_t conv_depthwise_workspace(const ops::ConvGeometry &g, int threads);

}  // namespace anydnn::cpu
