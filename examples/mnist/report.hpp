// What the demo prints and writes: a progress bar, the confusion matrix, and
// the training curve as an SVG.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace mnist {

// One line redrawn in place on a terminal (only the finished line when the
// output is not one, so that logs stay readable).
class ProgressBar {
public:
    ProgressBar(int epoch, int epochs, int total);
    // done samples so far, the running mean loss, seconds since the epoch began.
    void update(int done, double loss, double seconds);
    void finish(int done, double loss, double seconds);

private:
    void draw(int done, double loss, double seconds, bool final);
    int epoch_, epochs_, total_;
    bool tty_;
    double last_drawn_ = -1;
};

struct EpochStats {
    double train_loss = 0, test_accuracy = 0;
};

// counts[truth][predicted], printed with row and column labels.
void print_confusion(const std::vector<std::vector<int>> &counts);

// The loss and accuracy per epoch as a two-axis line chart.
void write_curve_svg(const std::string &path, const std::vector<EpochStats> &epochs);

}  // namespace mnist
