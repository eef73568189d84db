// The normalization kernel family: the statistics, normalize and gradient
// passes that batch, layer, instance, group and RMS normalization share.
// Declarations only; src/cpu/kernels/normalization.hpp implements them once
// per ISA level.
//
// Every pass walks all of x's elements with one StridedLoop whose operands
// are the data tensors plus two *key* operands: the index of the element's
// statistics group and of its parameter (scale/bias) group in packed internal
// arrays. The exec lays those arrays out in x's memory order, so along the
// loop's innermost run each key steps by 0 (one group for the whole run) or
// 1 (the next group each element): the two cases the kernels vectorize.
#pragma once

#include <cstdint>

#include "anydnn/anydnn_core.h"
#include "cpu/isa_table.hpp"
#include "cpu/parallel.hpp"
#include "cpu/strided_loop.hpp"

namespace anydnn::cpu {

// The operands of NormArgs::loop (strides 0 for the ones a pass lacks).
enum NormOperand {
    kNormX = 0,
    kNormOut = 1,   // y (forward) or dx (backward)
    kNormIn2 = 2,   // z (forward) or dy (backward)
    kNormDz = 3,    // dz (backward with an add)
    kNormMask = 4,  // the activation mask in the reserve space, one byte per element
    kNormStat = 5,  // statistics group index
    kNormParam = 6, // parameter group index
    kNormOperands = 7
};

// The reductions (stats, grad_sums) split the flat element range into
// `chunks` fixed pieces, each summed into its own partial arrays in double
// (float data: short blocks in float first, kernels/normalization.hpp);
// the exec adds the chunks in order. The split depends on the shape only, so
// results do not depend on the thread count.
struct NormArgs {
    StridedLoop loop;
    anydnnDataType_t dt;
    const void *x;
    void *out;          // y or dx
    const void *in2;    // z or dy; NULL: none
    void *dz;           // NULL: none
    unsigned char *mask;  // NULL: no activation mask (forward: written when not NULL)
    bool add, relu;
    // The elementwise passes take per-group coefficients (s, p: the
    // element's statistics and parameter group):
    //   forward:    y = (x * ca[s] + cb[s]) * cscale[p] + cbias[p]
    //   grad_input: dx = (dy * cscale[p]) * ca[s] + x * cb[s] + cc[s]
    // in double when `wide` (float data only) or the data is double, else
    // in float. cscale is NULL where the exec folded the parameters into the
    // coefficients (the statistics and parameter groups coincide: every BN
    // mode).
    const void *ca, *cb, *cc, *cscale, *cbias;
    bool wide;
    // grad_sums, per statistics / parameter group, in double whatever the
    // data type: x - mean in float loses the digits that matter when a
    // group's values are close (per-activation with a small N). (Blocks of
    // rows that share their groups sum a few terms in float first where
    // `wide` is not set: grad_sums_own.)
    const double *mean, *inv, *scale;
    double alpha, beta;
    // Split the work in rows of the loop's innermost dimension (short runs)
    // rather than in elements; chunks count units of that kind.
    bool by_rows;
    int64_t chunks, nstats, nparams;
    // x's elements, all of them where the passes take a block of groups at
    // a time: the size that decides streaming stores.
    int64_t elements;
    // stats:     chunks x {sum x, sum x^2} x nstats
    // grad_sums: chunks x {sum g, sum g xhat} x nstats, and
    //            chunks x {sum dy, sum dy xhat} x nparams
    // forward_groups: {mean, variance} x nstats (its output)
    double *stat_partial, *param_partial;
    // forward_groups, grad_groups: the parameters in double (cscale, cbias:
    // in float for float data), epsilon, and RMS normalization's zero mean.
    const double *dscale, *dbias;
    double epsilon;
    bool rms;
};

// The elementwise passes in float are exact enough where x * inv stays
// small against the output (|mean| * inv <= this): x * ca + cb rounds like
// x - mean would, about |mean| * inv float ulps of xhat (4e-6 at 64).
// Groups of close values (per-activation with a small N, a constant
// channel) compute in double: the exec decides for a whole call
// (NormArgs::wide), forward_groups and grad_groups for each row.
constexpr double kFloatMeanRatio = 64;

struct NormKernels {
    void (*stats)(const ExecContext &, const NormArgs &);
    // y = alpha * act(scale * xhat + bias [+ z]) + beta * y (NormArgs::ca); the mask when asked.
    void (*forward)(const ExecContext &, const NormArgs &);
    // The partial sums of the backward pass; dz = masked dy when dz is set.
    void (*grad_sums)(const ExecContext &, const NormArgs &);
    // dx = alpha * inv * (g - mean(g) - xhat * mean(g xhat)) + beta * dx, g = dy * scale
    // (NormArgs::ca).
    void (*grad_input)(const ExecContext &, const NormArgs &);
    // Where each of the loop's rows is one whole statistics group (by_rows,
    // x and y contiguous along it, no add, activation or mask): per row its
    // statistics into stat_partial, then y as forward's, one pass over the
    // row while it is in cache.
    void (*forward_groups)(const ExecContext &, const NormArgs &);
    // The backward pass on the same rows: per row its sums, then dx; the
    // parameters' {sum dy, sum dy xhat} per chunk of rows into
    // param_partial; mean and inv NULL: each row's statistics recomputed.
    void (*grad_groups)(const ExecContext &, const NormArgs &);
};

ANYDNN_DECLARE_ISA_TABLE(NormKernels, normalization)

}  // namespace anydnn::cpu
