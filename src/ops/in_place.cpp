#include "ops/in_place.hpp"

namespace anydnn::ops {

Status check_in_place(const void *out, const TensorLayout &out_l, const char *out_arg, const void *in,
                      const TensorLayout &in_l, const char *in_arg) {
    if (out == in && !out_l.same_geometry(in_l))
        return fail(ANYDNN_STATUS_BAD_PARAM, "%s is the buffer of %s, but %s (%s) differs from %s (%s)", out_arg,
                    in_arg, out_arg, out_l.to_string().c_str(), in_arg, in_l.to_string().c_str());
    return kSuccess;
}

}  // namespace anydnn::ops
