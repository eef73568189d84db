// The convolution kernel family: forward convolution by the batch-reduce
// GEMM over filter taps (IMPLICIT_PRECOMP_GEMM), by direct loops
// (IMPLICIT_GEMM) and by depthwise direct loops (DIRECT). Declarations and
// the plan that src/cpu/conv_exec.cpp computes once per call;
// src/cpu/kernels/conv.hpp implements them once per ISA level.
// docs/ARCHITECTURE.md ("Convolution") explains the stride-deinterleaved
// planes and why they make every stride, dilation and padding one GEMM.
#pragma once

#include <cstddef>
#include <cstdint>

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
    bool channels_last = false;  // C[pixel][oc] = X[pixel][ic] W^T, else C[oc][pixel] = W X[ic][pixel]
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
    int64_t w_ld = 0;         // leading dimension of a tap's ocg x icg matrix
    int64_t wr_elems = 0;     // reordered filter elements
    bool y_direct = false;    // the GEMM writes y (no junk, matching layout and type)
    int64_t m_virtual = 0;    // pixel numbers computed per image: [0, m_virtual)
    int64_t chunk = 0;        // pixels per GEMM call
    int64_t scratch_elems = 0;  // per worker, 0 when y_direct
    bool outer_parallel = false;  // workers take whole images, each GEMM single-threaded
    int workers = 1;
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

// Whether the depthwise kernel copies each image of x channels-last first:
// x's channels are strided and its output rows too short (or strided) for
// the width-innermost loops to pay.
inline bool conv_depthwise_copies_x(const ops::ConvGeometry &g) {
    return g.xs[1] != 1 && (g.xs[4] != 1 || g.out[2] < 64);
}

// Workspace of the depthwise kernel: the filter as [tap][K] in the compute
// type, then (conv_depthwise_copies_x) one image of x channels-last.
std::size_t conv_depthwise_workspace(const ops::ConvGeometry &g);

}  // namespace anydnn::cpu
