// The conv driver's benchdnn descriptors (core/conv_shape.hpp): defaults,
// 3-D, dilation, explicit outputs, canonical form, errors, and the shape
// lists shipped in lists/conv_*.txt.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "core/cli.hpp"
#include "core/conv_shape.hpp"
#include "core/error.hpp"

#ifndef ANYDNN_BENCH_LISTS
#define ANYDNN_BENCH_LISTS "tools/bench/lists"
#endif

namespace anydnn_bench {
namespace {

std::string error_of(const std::string &descriptor) {
    try {
        parse_conv_shape(descriptor);
    } catch (const ParseError &e) {
        return e.what();
    }
    return "";
}

#define EXPECT_CONV_REJECTED(descriptor, part)                                                        \
    do {                                                                                              \
        const std::string msg_ = error_of(descriptor);                                                \
        EXPECT_FALSE(msg_.empty()) << descriptor << " accepted";                                      \
        EXPECT_NE(msg_.find(part), std::string::npos) << "message: " << msg_ << "\nexpected: " << part; \
    } while (0)

TEST(ConvShape, SquareDefaults) {
    const ConvShape s = parse_conv_shape("mb1ic64ih56oc64oh56kh3ph1n\"res2_branch2b_x3\"");
    EXPECT_EQ(s.ndims, 2);
    EXPECT_EQ(s.g, 1);
    EXPECT_EQ(s.mb, 1);
    EXPECT_EQ(s.ic, 64);
    EXPECT_EQ(s.oc, 64);
    EXPECT_EQ(s.i[1], 56);
    EXPECT_EQ(s.i[2], 56);
    EXPECT_EQ(s.o[2], 56);
    EXPECT_EQ(s.k[2], 3);
    EXPECT_EQ(s.s[2], 1);
    EXPECT_EQ(s.p[2], 1);
    EXPECT_EQ(s.d[2], 0);
    EXPECT_EQ(s.i[0], 1);
    EXPECT_EQ(s.k[0], 1);
    EXPECT_EQ(s.name, "res2_branch2b_x3");
    EXPECT_DOUBLE_EQ(s.flops(), 2.0 * 64 * 56 * 56 * 64 * 9);
    EXPECT_EQ(to_string(s), "mb1ic64ih56oc64oh56kh3ph1n\"res2_branch2b_x3\"");
}

TEST(ConvShape, ComputedOutputAndStride) {
    const ConvShape s = parse_conv_shape("ic3ih224oc64kh7sh2ph3");
    EXPECT_EQ(s.mb, 1);
    EXPECT_EQ(s.o[1], 112);
    EXPECT_EQ(s.o[2], 112);
    EXPECT_EQ(s.s[2], 2);
    EXPECT_EQ(to_string(s), "mb1ic3ih224oc64oh112kh7sh2ph3");
}

TEST(ConvShape, Rectangular) {
    const ConvShape s = parse_conv_shape("mb1ic8ih15iw31oc8oh13ow27kh3kw5dh0dw0ph0pw0n\"rect_kernel\"");
    EXPECT_EQ(s.i[2], 31);
    EXPECT_EQ(s.k[2], 5);
    EXPECT_EQ(s.o[2], 27);
    EXPECT_EQ(to_string(s), "mb1ic8ih15iw31oc8oh13ow27kh3kw5n\"rect_kernel\"");
}

TEST(ConvShape, ThreeD) {
    const ConvShape s = parse_conv_shape("mb1ic32id64ih64oc64od32oh32kd3kh3sd2sh2pd1ph1n\"unet3d_down_x1\"");
    EXPECT_EQ(s.ndims, 3);
    for (int a = 0; a < 3; ++a) {
        EXPECT_EQ(s.i[a], 64);
        EXPECT_EQ(s.o[a], 32);
        EXPECT_EQ(s.k[a], 3);
        EXPECT_EQ(s.s[a], 2);
        EXPECT_EQ(s.p[a], 1);
    }
    EXPECT_EQ(to_string(s), "mb1ic32id64oc64od32kd3sd2pd1n\"unet3d_down_x1\"");
    // h defaults to d, w to h.
    const ConvShape t = parse_conv_shape("ic4id5oc4kd3");
    EXPECT_EQ(t.ndims, 3);
    EXPECT_EQ(t.i[2], 5);
    EXPECT_EQ(t.o[1], 3);
}

TEST(ConvShape, Dilation) {
    // benchdnn's dh1 is a dilation of 2: the 3x3 kernel spans 5.
    const ConvShape s = parse_conv_shape("mb1ic16ih32oc16oh28kh3dh1ph0n\"dilation2\"");
    EXPECT_EQ(s.d[1], 1);
    EXPECT_EQ(s.d[2], 1);
    EXPECT_EQ(s.kernel_extent(2), 5);
    EXPECT_EQ(s.o[2], 28);
    EXPECT_EQ(to_string(s), "mb1ic16ih32oc16oh28kh3dh1n\"dilation2\"");
}

TEST(ConvShape, GroupsAndNames) {
    const ConvShape s = parse_conv_shape("g32mb2ic32ih112oc32oh112kh3ph1_n\"dw1\"");
    EXPECT_EQ(s.g, 32);
    EXPECT_EQ(s.mb, 2);
    EXPECT_EQ(s.reduction_length(), 9);
    EXPECT_EQ(s.name, "dw1");
    EXPECT_EQ(parse_conv_shape("ic2ih4oc2nplain").name, "plain");
    EXPECT_EQ(to_string(parse_conv_shape("g32mb2ic32ih112oc32oh112kh3ph1")), "g32mb2ic32ih112oc32oh112kh3ph1");
}

TEST(ConvShape, OneD) {
    const ConvShape s = parse_conv_shape("ic4iw10oc8kw3");
    EXPECT_EQ(s.ndims, 1);
    EXPECT_EQ(s.i[1], 1);
    EXPECT_EQ(s.o[2], 8);
    EXPECT_EQ(to_string(s), "mb1ic4iw10oc8ow8kw3");
}

TEST(ConvShape, Errors) {
    EXPECT_CONV_REJECTED("", "empty");
    EXPECT_CONV_REJECTED("ih4oc2", "no ic");
    EXPECT_CONV_REJECTED("ic2ih4", "no oc");
    EXPECT_CONV_REJECTED("ic2oc2kh3", "no ih");
    EXPECT_CONV_REJECTED("ic2ih4oc2oh3", "oh 3 disagrees with the 4");
    EXPECT_CONV_REJECTED("ic2ih4oc2kh7", "larger than the padded input");
    EXPECT_CONV_REJECTED("ic2ih4xy3oc2", "unknown field 'xy'");
    EXPECT_CONV_REJECTED("ic2ihoc2", "ih: no number");
    EXPECT_CONV_REJECTED("ic2ih4ic3oc2", "ic given twice");
    EXPECT_CONV_REJECTED("ic0ih4oc2", "ic is 0");
    EXPECT_CONV_REJECTED("ic2ih4oc2sh0", "sh is 0");
    EXPECT_CONV_REJECTED("g3ic4ih4oc6", "ic 4 is not a multiple of g 3");
    EXPECT_CONV_REJECTED("g2ic4ih4oc3", "oc 3 is not a multiple of g 2");
    EXPECT_CONV_REJECTED("ic2ih4oc2n\"open", "no closing quote");
    EXPECT_CONV_REJECTED("ic2ih4oc2n", "empty name");
    EXPECT_CONV_REJECTED("ic2ih99999999999oc2", "too large");
    EXPECT_CONV_REJECTED("16x64x56x56", "field name");
}

TEST(ConvShape, CommandLine) {
    const std::vector<std::string> args{"--conv", "--mb=4", "--tag=nhwc", "--fused", "ic2ih4oc2kh3"};
    const Plan plan = parse_command_line(args);
    ASSERT_EQ(plan.problems.size(), 1u);
    EXPECT_EQ(plan.problems[0].problem->repro(),
              "--conv --dir=FWD_D --fused --dt=f32 --tag=nhwc --alg=auto mb4ic2ih4oc2oh2kh3");
    EXPECT_THROW(parse_command_line(std::vector<std::string>{"--conv", "--alg=fft", "ic2ih4oc2"}), ParseError);
    EXPECT_THROW(parse_command_line(std::vector<std::string>{"--conv", "--frob"}), ParseError);
}

// Every line of the shipped lists parses, and its canonical form parses
// back to the same shape.
TEST(ConvShape, ShippedLists) {
    for (const char *list : {"conv_3d", "conv_edge_cases", "conv_mobilenet_v2", "conv_resnet50", "conv_vgg16"}) {
        const std::string path = std::string(ANYDNN_BENCH_LISTS) + "/" + list + ".txt";
        std::ifstream in(path);
        ASSERT_TRUE(in) << path;
        int count = 0;
        for (std::string line; std::getline(in, line);) {
            if (line.empty() || line[0] == '#') continue;
            SCOPED_TRACE(path + ": " + line);
            ConvShape s;
            ASSERT_NO_THROW(s = parse_conv_shape(line));
            EXPECT_EQ(to_string(parse_conv_shape(to_string(s))), to_string(s));
            ++count;
        }
        EXPECT_GT(count, 0) << path;
        const Plan plan = parse_command_line(std::vector<std::string>{"--conv", "--batch=" + path});
        EXPECT_EQ(int(plan.problems.size()), count) << path;
    }
}

}  // namespace
}  // namespace anydnn_bench
