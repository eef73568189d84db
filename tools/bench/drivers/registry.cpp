// The list of drivers: one line per op family.
#include "core/driver.hpp"
#include "drivers/binary.hpp"
#include "drivers/bnorm.hpp"
#include "drivers/conv.hpp"
#include "drivers/eltwise.hpp"
#include "drivers/lrn.hpp"
#include "drivers/pool.hpp"
#include "drivers/reduction.hpp"
#include "drivers/rnn.hpp"
#include "drivers/softmax.hpp"
#include "drivers/transform.hpp"

namespace anydnn_bench {
namespace {

const DriverInfo kDrivers[] = {
    {"eltwise", kEltwiseUsage, make_eltwise_driver},
    {"binary", kBinaryUsage, make_binary_driver},
    {"transform", kTransformUsage, make_transform_driver},
    {"reorder", "    the same as --transform (benchdnn's name)\n", make_transform_driver},
    {"softmax", kSoftmaxUsage, make_softmax_driver},
    {"reduction", kReductionUsage, make_reduction_driver},
    {"conv", kConvUsage, make_conv_driver},
    {"pool", kPoolUsage, make_pool_driver},
    {"lrn", kLrnUsage, make_lrn_driver},
    {"bnorm", kBnormUsage, make_bnorm_driver},
    {"lnorm", kLnormUsage, make_lnorm_driver},
    {"rnn", kRnnUsage, make_rnn_driver},
};

}  // namespace

std::span<const DriverInfo> drivers() { return kDrivers; }

}  // namespace anydnn_bench
