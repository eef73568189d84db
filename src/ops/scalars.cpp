#include "ops/scalars.hpp"

namespace anydnn::ops {

Status scalar_arg(const void *p, const char *arg, anydnnDataType_t dt, double *out) {
    if (p == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "%s is NULL", arg);
    *out = dt == ANYDNN_DATA_DOUBLE ? *static_cast<const double *>(p)
                                    : static_cast<double>(*static_cast<const float *>(p));
    return kSuccess;
}

Status pointer_arg(const void *p, const char *arg) {
    if (p == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "%s is NULL", arg);
    return kSuccess;
}

}  // namespace anydnn::ops
