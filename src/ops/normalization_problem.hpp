// The normalization problems (batch, layer, instance, group and RMS
// normalization, forward and backward), validated once for every backend.
//
// Every mode is one rule: x's elements fall into statistics groups that
// share a mean and an inverse standard deviation, and into parameter groups
// that share a scale and a bias. Both are described on the *logical
// dimensions* of x: n, g, cg, spatial... where C = g x cg (g = groupCnt for
// GROUP, 1 otherwise): a group is the set of elements whose coordinates agree
// on the dimensions marked `stat` (or `param`). The kernels see nothing else.
#pragma once

#include <cstdint>
#include <string>

#include "anydnn/anydnn_ops.h"
#include "core/tensor_desc.hpp"
#include "ops/activation_problem.hpp"

namespace anydnn::ops {

enum class NormKind { per_activation, spatial, layer, instance, group, rms };

// What is computed: the mode with its groups and fused ops.
struct NormSpec {
    NormKind kind = NormKind::spatial;
    int groups = 1;     // GROUP only
    bool add = false;   // z added before the activation
    bool relu = false;  // the activation (RELU only)
    std::string to_string() const;
};

constexpr int kNormMaxLogical = 6;  // x of 4 or 5 dimensions, C split in two

struct NormProblem {
    NormSpec spec;
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT;   // of the data tensors
    anydnnDataType_t pdt = ANYDNN_DATA_FLOAT;  // of scale, bias, means, variances
    // Logical dimensions: 0 = n, 1 = g, 2 = cg, then x's spatial ones.
    int nl = 0;
    int64_t ldims[kNormMaxLogical] = {};
    bool stat_dim[kNormMaxLogical] = {}, param_dim[kNormMaxLogical] = {};
    int64_t nstats = 1, nparams = 1;
    int64_t m = 1;  // elements per statistics group
    TensorLayout x, y, z, dy, dx, dz;
    TensorLayout stat, param;  // the mean/variance and the scale/bias descriptors
    bool has_z = false, has_dz = false;
    double alpha = 1, beta = 0;              // of y, or of dx (alphaDataDiff, betaDataDiff)
    double alpha_param = 1, beta_param = 0;  // of dscale and dbias
    double epsilon = ANYDNN_BN_MIN_EPSILON, factor = 1;
    std::string to_string() const;
};

// The element strides of a data tensor on the logical dimensions.
void norm_logical_strides(const NormProblem &p, const TensorLayout &t, int64_t *s);
// The same for the user's mean/variance (stat) or scale/bias (param)
// tensor: 0 on the dimensions they do not have.
void norm_small_strides(const NormProblem &p, const TensorLayout &t, bool param, int64_t *s);

// The spec of a batch normalization mode and ops. BAD_PARAM: unknown values.
// NOT_SUPPORTED: an activation other than RELU.
Status bn_spec(anydnnBatchNormMode_t mode, anydnnBatchNormOps_t ops, const anydnnActivationStruct *act,
               NormSpec *out);
Status norm_spec(anydnnNormMode_t mode, anydnnNormOps_t ops, anydnnNormAlgo_t algo, int group_cnt,
                 const anydnnActivationStruct *act, NormSpec *out);

// The dimensions of the scale/bias (param) and mean/variance (stat) tensors
// for x. BAD_PARAM: x not 4 or 5-D, groups not dividing C.
Status norm_small_dims(const NormSpec &spec, const TensorLayout &x, bool param, int64_t *dims);
// The type of those tensors: DOUBLE for DOUBLE x, FLOAT otherwise.
anydnnDataType_t norm_param_type(anydnnDataType_t dt);

// Checks x against the spec and the param/stat descriptors (either may be
// NULL: not used by the call) and fills *p's shape. BAD_PARAM: dimensions or
// types that do not match, x not 4 or 5-D. NOT_SUPPORTED: integer data.
Status make_norm_problem(const NormSpec &spec, const TensorLayout &x, const TensorLayout *param,
                         const TensorLayout *stat, NormProblem *p);
// BAD_PARAM unless t (named arg) has x's dimensions and type.
Status check_like_x(const NormProblem &p, const TensorLayout &t, const char *arg);
// BAD_PARAM when epsilon < ANYDNN_BN_MIN_EPSILON or is NaN.
Status check_epsilon(double epsilon);

// Bytes of the reserve space a training pass with `spec` needs for x.
size_t norm_reserve_bytes(const NormSpec &spec, const TensorLayout &x);

}  // namespace anydnn::ops
