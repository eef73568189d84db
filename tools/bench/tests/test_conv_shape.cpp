// The conv driver's benchdnn descriptors (core/conv_shape.hpp): defaults,
// 3-D, dilation, explicit outputs, canonical form, errors, and the shape
// lists shipped in lists/conv_*.txt.
#include <gtest/gtest.h>

#include <cmath>
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

// The backward directions: reproducers, algorithms per direction, and the
// counts the report divides by.
TEST(ConvShape, BackwardDirections) {
    const auto problem = [](std::vector<std::string> args) {
        Plan plan = parse_command_line(args);
        EXPECT_EQ(plan.problems.size(), 1u);
        return std::move(plan.problems.at(0).problem);
    };
    EXPECT_EQ(problem({"--conv", "--dir=bwd_w", "--tag=nhwc", "--alg=algo1", "mb2ic8ih9oc12kh3ph1"})->repro(),
              "--conv --dir=BWD_W --dt=f32 --tag=nhwc --alg=algo1 mb2ic8ih9oc12oh9kh3ph1");
    EXPECT_EQ(problem({"--conv", "--dir=BWD_D", "mb2ic8ih9oc12kh3ph1"})->repro(),
              "--conv --dir=BWD_D --dt=f32 --tag=nchw --alg=auto mb2ic8ih9oc12oh9kh3ph1");
    EXPECT_EQ(problem({"--conv", "--dir=bwd_b", "mb2ic8ih9oc12kh3ph1"})->repro(),
              "--conv --dir=BWD_B --dt=f32 --tag=nchw --alg=auto mb2ic8ih9oc12oh9kh3ph1");

    // src 2x8x9x9, wei 12x8x3x3, dst 2x12x9x9, bias 12; f32.
    const int64_t src = 1296, wei = 864, dst = 1944, bias = 12;
    const double fwd_flops = 2.0 * 2 * 12 * 81 * 72;
    const auto fwd = problem({"--conv", "mb2ic8ih9oc12kh3ph1"});
    const auto bwd_d = problem({"--conv", "--dir=bwd_d", "mb2ic8ih9oc12kh3ph1"});
    const auto bwd_w = problem({"--conv", "--dir=bwd_w", "mb2ic8ih9oc12kh3ph1"});
    const auto bwd_b = problem({"--conv", "--dir=bwd_b", "mb2ic8ih9oc12kh3ph1"});
    EXPECT_EQ(fwd->flops(), fwd_flops);
    EXPECT_EQ(bwd_d->flops(), fwd_flops);
    EXPECT_EQ(bwd_w->flops(), fwd_flops);
    EXPECT_EQ(bwd_b->flops(), 0);
    EXPECT_EQ(fwd->bytes(), (src + wei + dst) * 4);
    EXPECT_EQ(bwd_d->bytes(), (wei + dst + src) * 4);
    EXPECT_EQ(bwd_w->bytes(), (src + dst + wei) * 4);
    EXPECT_EQ(bwd_b->bytes(), (dst + bias) * 4);

    // The tolerance grows with the length of each output's sum: ic/g * taps
    // forward (576 here), oc/g * taps for BWD_D (1152), mb * output pixels
    // for BWD_W and BWD_B (50176).
    const std::string big = "mb16ic64ih56oc128kh3ph1";
    EXPECT_NEAR(problem({"--conv", big})->tolerance(), 1e-5 * 24 / 16, 1e-12);
    EXPECT_NEAR(problem({"--conv", "--dir=bwd_d", big})->tolerance(), 1e-5 * std::sqrt(1152.0) / 16, 1e-12);
    EXPECT_NEAR(problem({"--conv", "--dir=bwd_w", big})->tolerance(), 1e-5 * 224 / 16, 1e-12);
    EXPECT_NEAR(problem({"--conv", "--dir=bwd_b", big})->tolerance(), 1e-5 * 224 / 16, 1e-12);
}

std::string command_line_error(std::vector<std::string> args) {
    try {
        parse_command_line(args);
    } catch (const ParseError &e) {
        return e.what();
    }
    return "";
}

TEST(ConvShape, AlgorithmsBelongToTheirDirection) {
    const std::pair<std::vector<std::string>, const char *> rejected[] = {
        {{"--conv", "--dir=bwd_d", "--alg=precomp", "ic2ih4oc2"}, "--alg=precomp is a forward algorithm"},
        {{"--conv", "--dir=BWD_W", "--alg=direct", "ic2ih4oc2"}, "--alg=direct is a forward algorithm"},
        {{"--conv", "--alg=algo1", "ic2ih4oc2"}, "--alg=algo1 is a backward algorithm"},
        {{"--conv", "--dir=bwd_b", "--alg=algo0", "ic2ih4oc2"}, "--dir=BWD_B has no algorithm to choose"},
        {{"--conv", "--dir=bwd_d", "--fused", "ic2ih4oc2"}, "--fused is forward only"},
        {{"--conv", "--dir=bwd", "ic2ih4oc2"}, "--dir"},
    };
    for (const auto &[args, part] : rejected) {
        const std::string msg = command_line_error(args);
        EXPECT_NE(msg.find(part), std::string::npos) << "message: " << msg << "\nexpected: " << part;
    }
    EXPECT_EQ(command_line_error({"--conv", "--dir=bwd_d", "--alg=algo0", "ic2ih4oc2", "--dir=bwd_w", "ic2ih4oc2"}),
              "");
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
