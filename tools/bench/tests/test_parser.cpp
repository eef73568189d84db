// anydnn-bench's command-line and descriptor parsing: accepted syntax, the
// reproducer of each problem, and bad input rejected with a message that
// names the field at fault. Nothing here runs a primitive.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "core/cli.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"

namespace anydnn_bench {
namespace {

Plan parse(std::vector<std::string> args) { return parse_command_line(args); }

// The message of the ParseError that parsing `args` throws ("" if none).
std::string error_of(std::vector<std::string> args) {
    try {
        parse_command_line(args);
    } catch (const ParseError &e) {
        return e.what();
    }
    return "";
}

#define EXPECT_REJECTED(args, ...)                                          \
    do {                                                                    \
        const std::string msg_ = error_of(args);                            \
        EXPECT_FALSE(msg_.empty()) << "accepted";                           \
        for (const char *part_ : {__VA_ARGS__})                             \
            EXPECT_NE(msg_.find(part_), std::string::npos) << "message: " << msg_ << "\nexpected: " << part_; \
    } while (0)

TEST(BenchParser, Dims) {
    EXPECT_EQ(parse_dims("16x64x56x56", "src"), (Dims{16, 64, 56, 56}));
    EXPECT_EQ(parse_dims("7", "src"), (Dims{7}));
    EXPECT_EQ(dims_string({2, 3, 5}), "2x3x5");
    const std::vector<Dims> two = parse_dims_list("4x8:1x8", {"src0", "src1"});
    ASSERT_EQ(two.size(), 2u);
    EXPECT_EQ(two[1], (Dims{1, 8}));
}

TEST(BenchParser, BadDimsNameTheField) {
    EXPECT_REJECTED(std::vector<std::string>({"--eltwise", "16x0x56x56"}), "src", "dimension 1", "is 0");
    EXPECT_REJECTED(std::vector<std::string>({"--eltwise", "16xax56"}), "src", "dimension 1", "'a'");
    EXPECT_REJECTED(std::vector<std::string>({"--eltwise", "16x64x"}), "dimension 2", "not a number");
    EXPECT_REJECTED(std::vector<std::string>({"--eltwise", "1x1x1x1x1x1x1x1x1"}), "9 dimensions");
    EXPECT_REJECTED(std::vector<std::string>({"--eltwise", "65536x65536"}), "2^31");
    EXPECT_REJECTED(std::vector<std::string>({"--binary", "2x3x4x5:2x7x4x5"}), "src1 dimension 1", "is 7",
                    "src0's 3");
    EXPECT_REJECTED(std::vector<std::string>({"--binary", "2x3x4x5:3x4x5"}), "src1 has 3 dimensions");
    EXPECT_REJECTED(std::vector<std::string>({"--binary", "2x3:2x3:2x3"}), "more than 2");
    EXPECT_REJECTED(std::vector<std::string>({"--reduction", "2x3x4x5"}), "no dst");
    EXPECT_REJECTED(std::vector<std::string>({"--reduction", "2x3x4x5:1x2x1x1"}), "dst dimension 1", "is 2");
}

TEST(BenchParser, BadOptionsNameTheOption) {
    EXPECT_REJECTED(std::vector<std::string>({"--eltwise", "--alg=relux", "2x3x4x5"}), "--alg", "'relux'", "relu|");
    EXPECT_REJECTED(std::vector<std::string>({"--eltwise", "--dt=f8"}), "--dt", "'f8'");
    EXPECT_REJECTED(std::vector<std::string>({"--eltwise", "--dt=s8"}), "--dt", "f32|f64|f16|bf16");
    EXPECT_REJECTED(std::vector<std::string>({"--eltwise", "--tag=nchw16c"}), "--tag", "'nchw16c'");
    EXPECT_REJECTED(std::vector<std::string>({"--eltwise", "--dir=up"}), "--dir", "'up'");
    EXPECT_REJECTED(std::vector<std::string>({"--eltwise", "--alpha=abc"}), "--alpha", "'abc'");
    EXPECT_REJECTED(std::vector<std::string>({"--eltwise", "--axis=1"}), "unknown option '--axis'", "--eltwise");
    EXPECT_REJECTED(std::vector<std::string>({"--threads=0"}), "--threads", "minimum 1");
    EXPECT_REJECTED(std::vector<std::string>({"--mode=fast"}), "--mode", "perf|corr|both");
    EXPECT_REJECTED(std::vector<std::string>({"--compare=cudnn"}), "--compare", "onednn|none");
    EXPECT_REJECTED(std::vector<std::string>({"--min-time=-1"}), "--min-time");
    EXPECT_REJECTED(std::vector<std::string>({"--frobnicate"}), "unknown option '--frobnicate'");
    EXPECT_REJECTED(std::vector<std::string>({"--alg=relu"}), "--alg", "no driver flag");
    EXPECT_REJECTED(std::vector<std::string>({"2x3x4x5"}), "before any driver flag");
    EXPECT_REJECTED(std::vector<std::string>({"--softmax", "--axis=2", "64x1000"}), "--axis=2", "out of range");
    EXPECT_REJECTED(std::vector<std::string>({"--softmax", "--tag=nhwc", "--axis=2", "2x3x4x5"}), "--axis=2",
                    "nhwc");
    EXPECT_REJECTED(std::vector<std::string>({"--softmax", "--dir=bwd"}), "--dir", "'bwd'");
    EXPECT_REJECTED(std::vector<std::string>({"--batch=/nonexistent/list.txt"}), "--batch", "cannot open");
}

TEST(BenchParser, ProblemsCarryTheirOptions) {
    const Plan plan = parse({"--mode=corr", "--threads=3", "--eltwise", "--alg=tanh", "--dt=bf16", "--tag=nhwc",
                             "2x3x4x5", "--mode=both", "--dir=bwd", "1x2x3x4"});
    ASSERT_EQ(plan.problems.size(), 2u);
    EXPECT_EQ(plan.problems[0].settings.mode, Mode::corr);
    EXPECT_EQ(plan.problems[0].settings.threads, 3);
    EXPECT_EQ(plan.problems[0].problem->repro(), "--eltwise --dir=fwd --alg=tanh --dt=bf16 --tag=nhwc 2x3x4x5");
    // Options persist from one problem to the next.
    EXPECT_EQ(plan.problems[1].settings.mode, Mode::both);
    EXPECT_EQ(plan.problems[1].problem->repro(), "--eltwise --dir=bwd --alg=tanh --dt=bf16 --tag=nhwc 1x2x3x4");
}

TEST(BenchParser, DriverFlagResetsItsOptions) {
    const Plan plan = parse({"--eltwise", "--alg=gelu", "2x3x4x5", "--eltwise", "2x3x4x5"});
    ASSERT_EQ(plan.problems.size(), 2u);
    EXPECT_EQ(plan.problems[1].problem->repro(), "--eltwise --dir=fwd --alg=relu --dt=f32 --tag=nchw 2x3x4x5");
}

TEST(BenchParser, AlphaDefaultsPerAlgorithm) {
    const Plan plan = parse({"--eltwise", "--alg=clip", "2x3x4x5", "--alpha=0.5", "2x3x4x5", "--alg=relu", "1x1x1"});
    ASSERT_EQ(plan.problems.size(), 3u);
    EXPECT_EQ(plan.problems[0].problem->repro(), "--eltwise --dir=fwd --alg=clip --alpha=6 --dt=f32 --tag=nchw 2x3x4x5");
    EXPECT_EQ(plan.problems[1].problem->repro(),
              "--eltwise --dir=fwd --alg=clip --alpha=0.5 --dt=f32 --tag=nchw 2x3x4x5");
    EXPECT_EQ(plan.problems[2].problem->repro(), "--eltwise --dir=fwd --alg=relu --dt=f32 --tag=nchw 1x1x1");
}

// Every driver's reproducer parses back to the same problem.
TEST(BenchParser, ReproducersRoundTrip) {
    const std::vector<std::vector<std::string>> lines = {
        {"--eltwise", "--dir=BWD_D", "--alg=swish", "--alpha=1.5", "--dt=f16", "16x64x56x56"},
        {"--binary", "--alg=addtensor", "--tag=nhwc", "2x16x5x7:1x16x1x1"},
        {"--binary", "--alg=max", "2x16x5x7"},
        {"--reorder", "--sdt=f32", "--ddt=s8", "--stag=nhwc", "--dtag=nchw", "2x3x4x5"},
        {"--softmax", "--alg=logsoftmax", "--axis=0", "64x1000"},
        {"--reduction", "--alg=norm2", "--dt=f64", "16x64x56x56:16x64x1x1"},
        {"--conv", "--dir=bwd_d", "--tag=nhwc", "--alg=algo0", "g4mb2ic16ih12oc32kh3sh2ph1"},
        {"--conv", "--dir=bwd_w", "--dt=bf16", "mb2ic8ih9oc12kh3ph1n\"named\""},
        {"--conv", "--dir=bwd_b", "mb2ic8ih9oc12kh3ph1"},
        {"--pool", "--dir=bwd", "--alg=avg_np", "--tag=nhwc", "mb2ic8ih9oh5kh3sh2ph1"},
    };
    for (const auto &line : lines) {
        const Plan first = parse(line);
        ASSERT_EQ(first.problems.size(), 1u);
        const std::string repro = first.problems[0].problem->repro();
        std::vector<std::string> again;
        for (size_t b = 0, e; b < repro.size(); b = e + 1) {
            e = repro.find(' ', b);
            if (e == std::string::npos) e = repro.size();
            again.push_back(repro.substr(b, e - b));
        }
        const Plan second = parse(again);
        ASSERT_EQ(second.problems.size(), 1u) << repro;
        EXPECT_EQ(second.problems[0].problem->repro(), repro);
    }
}

TEST(BenchParser, BytesCountTheFewestTransfers) {
    const Plan plan = parse({"--eltwise", "4x4x4x4", "--dir=bwd", "4x4x4x4", "--binary", "--dt=f16", "4x4x4x4:1x4x1x1",
                             "--transform", "--sdt=f32", "--ddt=bf16", "4x4x4x4", "--reduction", "4x4x4x4:1x4x1x1"});
    ASSERT_EQ(plan.problems.size(), 5u);
    EXPECT_EQ(plan.problems[0].problem->bytes(), 256 * 4 * 2);
    EXPECT_EQ(plan.problems[1].problem->bytes(), 256 * 4 * 3);
    EXPECT_EQ(plan.problems[2].problem->bytes(), (256 * 2 + 4) * 2);
    EXPECT_EQ(plan.problems[3].problem->bytes(), 256 * (4 + 2));
    EXPECT_EQ(plan.problems[4].problem->bytes(), (256 + 4) * 4);
}

// Pooling 2x8x9x9 -> 2x8x5x5 (1296 and 400 values): forward x and y;
// backward dy and dx, and MAX reads x too.
TEST(BenchParser, PoolingBytes) {
    const Plan plan = parse({"--pool", "--alg=max", "mb2ic8ih9oh5kh3sh2ph1", "--dir=bwd", "mb2ic8ih9oh5kh3sh2ph1",
                             "--alg=avg_p", "mb2ic8ih9oh5kh3sh2ph1"});
    ASSERT_EQ(plan.problems.size(), 3u);
    EXPECT_EQ(plan.problems[0].problem->bytes(), (1296 + 400) * 4);
    EXPECT_EQ(plan.problems[1].problem->bytes(), (400 + 1296 + 1296) * 4);
    EXPECT_EQ(plan.problems[2].problem->bytes(), (400 + 1296) * 4);
}

TEST(BenchParser, Strides) {
    EXPECT_EQ(strides_for({2, 3, 4, 5}, Tag::nchw), (Dims{60, 20, 5, 1}));
    EXPECT_EQ(strides_for({2, 3, 4, 5}, Tag::nhwc), (Dims{60, 1, 15, 3}));
    EXPECT_EQ(strides_for({2, 3, 4, 5, 6}, Tag::nhwc), (Dims{360, 1, 90, 18, 3}));
    EXPECT_EQ(at_least_4d({64, 1000}), (Dims{64, 1000, 1, 1}));
}

TEST(BenchParser, BatchFiles) {
    const std::string path = testing::TempDir() + "bench_parser_batch.txt";
    {
        std::ofstream f(path);
        f << "# a comment line\n"
             "--softmax --axis=1 64x1000   # trailing comment\n"
             "\n"
             "--binary --alg=mul 2x3x4x5:1x3x1x1\n";
    }
    const Plan plan = parse({"--threads=2", "--batch=" + path, "--eltwise", "1x2x3x4"});
    ASSERT_EQ(plan.problems.size(), 3u);
    EXPECT_EQ(plan.problems[0].problem->repro(), "--softmax --alg=accurate --axis=1 --dt=f32 --tag=nchw 64x1000");
    EXPECT_EQ(plan.problems[1].problem->repro(), "--binary --alg=mul --dt=f32 --tag=nchw 2x3x4x5:1x3x1x1");
    EXPECT_EQ(plan.problems[1].settings.threads, 2);
    EXPECT_STREQ(plan.problems[2].problem->driver(), "eltwise");
    {
        std::ofstream f(path);
        f << "--eltwise 2x3x4x5\n--eltwise --alg=nope 2x3x4x5\n";
    }
    EXPECT_REJECTED(std::vector<std::string>({"--batch=" + path}), "bench_parser_batch.txt:2:", "--alg", "'nope'");
    std::remove(path.c_str());
}

TEST(BenchParser, GlobalOptions) {
    const Plan plan = parse({"--peak", "--threads=2", "--peak-mib=8", "--min-time=0.01", "--csv=out.csv",
                             "--json=-", "--peak-file=p.txt", "--compare=onednn", "--min-runs=3"});
    EXPECT_TRUE(plan.peak);
    EXPECT_EQ(plan.peak_threads, 2);
    EXPECT_EQ(plan.peak_mib, 8);
    EXPECT_DOUBLE_EQ(plan.peak_min_time_s, 0.01);
    EXPECT_EQ(plan.csv_path, "out.csv");
    EXPECT_EQ(plan.json_path, "-");
    EXPECT_EQ(plan.peak_file, "p.txt");
    EXPECT_TRUE(plan.problems.empty());
    EXPECT_TRUE(parse({"--help"}).help);
    EXPECT_FALSE(usage().empty());
}

// --lrn: benchdnn's descriptor (iw = ih unless given, a quoted name), its
// reproducer, --mb, and bad fields named.
TEST(BenchParser, Lrn) {
    Plan plan = parse({"--lrn", "--dir=bwd", "--tag=nhwc", "mb2ic96ih55ls5alpha0.0001beta0.75k2n\"alexnet_norm1_x1\"",
                       "--dir=fwd", "--mb=4", "mb1_ic8_id3ih4iw5_ls3"});
    ASSERT_EQ(plan.problems.size(), 2u);
    EXPECT_EQ(plan.problems[0].problem->repro(),
              "--lrn --dir=bwd --dt=f32 --tag=nhwc mb2ic96ih55iw55ls5alpha0.0001beta0.75k2_nalexnet_norm1_x1");
    EXPECT_EQ(plan.problems[0].problem->occurrences(), 1);
    EXPECT_EQ(plan.problems[1].problem->repro(),
              "--lrn --dir=fwd --dt=f32 --tag=nhwc mb4ic8id3ih4iw5ls3alpha0.0001beta0.75k1");
    EXPECT_REJECTED(std::vector<std::string>({"--lrn", "mb2ic96ih55xy3"}), "unknown field 'xy'");
    EXPECT_REJECTED(std::vector<std::string>({"--lrn", "mb2ic_ih55"}), "'ic' has no value");
    EXPECT_REJECTED(std::vector<std::string>({"--lrn", "--alg=within", "mb2ic3ih5"}), "--alg");
}

// --rnn: benchdnn's descriptor (sizes defaulting to each other, a quoted
// name), its reproducer, the work counted, and bad fields named.
TEST(BenchParser, Rnn) {
    Plan plan = parse({"--rnn", "l1t50mb1sic512slc512dhc512dic512n\"lstm512_t50_mb1\"", "--cell=gru",
                       "--prop=training", "--direction=bidirect_concat", "l2t3mb1sic8", "--cell=lstm",
                       "--prop=FWD_I", "--direction=left2right", "--mb=3", "l1_t2_sic4slc5dhc6"});
    ASSERT_EQ(plan.problems.size(), 3u);
    const Problem &lstm = *plan.problems[0].problem;
    EXPECT_EQ(lstm.repro(), "--rnn --cell=lstm --prop=inference --direction=left2right --dt=f32 "
                            "l1t50mb1sic512slc512dhc512dic512n\"lstm512_t50_mb1\"");
    // 4 gates x (input 512x512 + recurrent 512x512) x 2 per vector, 50 steps.
    EXPECT_DOUBLE_EQ(lstm.flops(), 4.0 * 2 * 512 * 512 * 2 * 50);
    // Weights, biases (bW and bR), x, y, hx, hy, cx, cy.
    EXPECT_DOUBLE_EQ(lstm.bytes(), 4.0 * (8 * 512 * 512 + 8 * 512 + 2 * 50 * 512 + 4 * 512));
    // Layer 1 of a bidirectional GRU reads both directions' outputs.
    const Problem &gru = *plan.problems[1].problem;
    EXPECT_EQ(gru.repro(), "--rnn --cell=gru --prop=training --direction=bidirect_concat --dt=f32 "
                           "l2t3mb1sic8slc8dhc8dic8");
    // 2 FLOP x 3 steps x 2 directions x 3 gates x (layer 0's W and R, layer 1's).
    EXPECT_DOUBLE_EQ(gru.flops(), 2.0 * 3 * 2 * 3 * ((8 * 8 + 8 * 8) + (8 * 16 + 8 * 8)));
    // dic < dhc: the projection (dic x dhc) is a matrix too.
    const Problem &proj = *plan.problems[2].problem;
    EXPECT_EQ(proj.repro(), "--rnn --cell=lstm --prop=inference --direction=left2right --dt=f32 "
                            "l1t2mb3sic4slc5dhc6dic4");
    EXPECT_DOUBLE_EQ(proj.flops(), 2.0 * 2 * 3 * (4 * 6 * 5 + 4 * 6 * 4 + 4 * 6));
    for (const auto &pp : plan.problems) {
        const std::string repro = pp.problem->repro();
        std::vector<std::string> again;
        for (size_t b = 0, e; b < repro.size(); b = e + 1) {
            e = repro.find(' ', b);
            if (e == std::string::npos) e = repro.size();
            again.push_back(repro.substr(b, e - b));
        }
        const Plan second = parse(again);
        ASSERT_EQ(second.problems.size(), 1u) << repro;
        EXPECT_EQ(second.problems[0].problem->repro(), repro);
    }
    EXPECT_REJECTED(std::vector<std::string>({"--rnn", "l1t2xy3sic4"}), "unknown field 'xy'");
    EXPECT_REJECTED(std::vector<std::string>({"--rnn", "l1t_sic4"}), "'t' has no value");
    EXPECT_REJECTED(std::vector<std::string>({"--rnn", "l1t2mb3"}), "no sic or dhc");
    EXPECT_REJECTED(std::vector<std::string>({"--rnn", "l1t2sic4dic8"}), "sic 4 must equal dic 8");
    EXPECT_REJECTED(std::vector<std::string>({"--rnn", "l1t2dhc4dic8"}), "dic 8 exceeds dhc 4");
    EXPECT_REJECTED(std::vector<std::string>({"--rnn", "--cell=gru", "l1t2dhc8dic4"}), "--cell=lstm only");
    EXPECT_REJECTED(std::vector<std::string>({"--rnn", "--cell=lstmp", "l1t2sic4"}), "--cell", "'lstmp'");
    EXPECT_REJECTED(std::vector<std::string>({"--rnn", "--direction=sum", "l1t2sic4"}), "--direction", "'sum'");
    EXPECT_REJECTED(std::vector<std::string>({"--rnn", "--prop=backward", "l1t2sic4"}), "--prop", "'backward'");
}

}  // namespace
}  // namespace anydnn_bench
