// The report's summaries, from hand-made results (nothing is timed): the
// weighted network total of layers named ..._xN, and the %peak column.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "core/conv_shape.hpp"
#include "core/report.hpp"

namespace anydnn_bench {
namespace {

Result timed(int occurrences, double anydnn_ms, double onednn_ms) {
    Result r;
    r.driver = "conv";
    r.repro = "--conv mb1ic8ih8oc8oh8kh1";
    r.occurrences = occurrences;
    r.perf = true;
    r.anydnn.median_ms = anydnn_ms;
    if (onednn_ms > 0) {
        r.has_onednn = true;
        r.onednn.median_ms = onednn_ms;
    }
    return r;
}

// A report that prints its rows nowhere.
struct QuietReport {
    FILE *sink = std::tmpfile();
    Report report{sink};
    ~QuietReport() { std::fclose(sink); }
};

TEST(BenchReport, OccurrencesInName) {
    EXPECT_EQ(occurrences_in_name("res2_branch2b_x3"), 3);
    EXPECT_EQ(occurrences_in_name("conv1_x12"), 12);
    EXPECT_EQ(occurrences_in_name("res2_branch2b"), 0);
    EXPECT_EQ(occurrences_in_name("res2_x"), 0);
    EXPECT_EQ(occurrences_in_name("res2_x3b"), 0);
    EXPECT_EQ(occurrences_in_name(""), 0);
}

TEST(BenchReport, NetworkTotalWeighsByOccurrences) {
    QuietReport q;
    q.report.add(timed(3, 1.0, 2.0));
    q.report.add(timed(1, 4.0, 2.0));
    const Report::NetworkTotal t = q.report.network_total();
    EXPECT_EQ(t.rows, 2);
    EXPECT_EQ(t.layers, 4);
    EXPECT_DOUBLE_EQ(t.anydnn_ms, 7.0);
    EXPECT_DOUBLE_EQ(t.onednn_ms, 8.0);
    EXPECT_DOUBLE_EQ(t.ratio(), 7.0 / 8.0);
}

TEST(BenchReport, NetworkTotalSkipsRowsNotOnBothSides) {
    QuietReport q;
    q.report.add(timed(2, 1.0, 1.0));
    q.report.add(timed(5, 3.0, 0));  // oneDNN not timed
    q.report.add(timed(0, 3.0, 3.0));  // no _xN in the name
    Result skipped = timed(4, 1.0, 1.0);
    skipped.outcome = Outcome::skipped;
    q.report.add(skipped);
    const Report::NetworkTotal t = q.report.network_total();
    EXPECT_EQ(t.rows, 1);
    EXPECT_DOUBLE_EQ(t.anydnn_ms, 2.0);
    EXPECT_DOUBLE_EQ(t.onednn_ms, 2.0);
}

// What the report printed so far.
std::string printed(FILE *f) {
    std::fflush(f);
    std::rewind(f);
    std::string s;
    for (int c; (c = std::fgetc(f)) != EOF;) s += char(c);
    return s;
}

TEST(BenchReport, PercentOfFmaPeak) {
    QuietReport q;
    Result r = timed(0, 20.0, 0);
    r.flops = 1e9;  // 50 GFLOP/s in 20 ms
    r.fma_gflops = 200.0;
    q.report.add(r);
    r.fma_gflops.reset();  // no cached peak: '-'
    r.repro = "--conv second";
    q.report.add(r);
    const std::string out = printed(q.sink);
    EXPECT_NE(out.find("%peak"), std::string::npos) << out;
    EXPECT_NE(out.find("50.0   25%"), std::string::npos) << out;
    EXPECT_NE(out.find("50.0     -"), std::string::npos) << out;
}

TEST(BenchReport, NoNetworkTotalWithoutNames) {
    QuietReport q;
    q.report.add(timed(0, 1.0, 2.0));
    EXPECT_EQ(q.report.network_total().rows, 0);
}

}  // namespace
}  // namespace anydnn_bench
