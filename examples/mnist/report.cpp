#include "report.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace mnist {

ProgressBar::ProgressBar(int epoch, int epochs, int total)
    : epoch_(epoch), epochs_(epochs), total_(total), tty_(isatty(fileno(stdout)) != 0) {}

void ProgressBar::update(int done, double loss, double seconds) {
    // Redraw at most ten times a second.
    if (!tty_ || seconds - last_drawn_ < 0.1) return;
    last_drawn_ = seconds;
    draw(done, loss, seconds, false);
}

void ProgressBar::finish(int done, double loss, double seconds) { draw(done, loss, seconds, true); }

void ProgressBar::draw(int done, double loss, double seconds, bool final) {
    constexpr int kWidth = 30;
    const int filled = total_ > 0 ? kWidth * done / total_ : kWidth;
    const double rate = seconds > 0 ? done / seconds : 0;
    const double eta = rate > 0 ? (total_ - done) / rate : 0;
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(kWidth, '.');
    std::printf("%sepoch %d/%d [%s] %5d/%d  loss %.4f  %6.0f samples/s  %s %4.1fs%s", tty_ ? "\r" : "", epoch_,
                epochs_, bar.c_str(), done, total_, loss, rate, final ? "took" : "ETA ", final ? seconds : eta,
                final ? "\n" : "");
    std::fflush(stdout);
}

void print_confusion(const std::vector<std::vector<int>> &counts) {
    std::printf("confusion matrix (rows: true digit, columns: predicted)\n      ");
    for (size_t j = 0; j < counts.size(); ++j) std::printf("%5zu", j);
    std::printf("\n");
    for (size_t i = 0; i < counts.size(); ++i) {
        std::printf("  %2zu |", i);
        for (int v : counts[i]) std::printf("%5d", v);
        std::printf("\n");
    }
}

void write_curve_svg(const std::string &path, const std::vector<EpochStats> &epochs) {
    std::ofstream out(path);
    if (!out) throw std::runtime_error(path + ": cannot write");
    constexpr double kW = 640, kH = 360, kLeft = 60, kRight = 60, kTop = 30, kBottom = 50;
    const double plot_w = kW - kLeft - kRight, plot_h = kH - kTop - kBottom;
    double max_loss = 0;
    for (const EpochStats &e : epochs) max_loss = std::max(max_loss, e.train_loss);
    max_loss = max_loss > 0 ? max_loss * 1.1 : 1;
    const size_t n = epochs.size();
    auto x_of = [&](size_t i) { return kLeft + (n > 1 ? plot_w * static_cast<double>(i) / (n - 1) : plot_w / 2); };
    auto polyline = [&](const char *color, auto value_to_y) {
        out << "<polyline fill='none' stroke='" << color << "' stroke-width='2.5' points='";
        for (size_t i = 0; i < n; ++i) out << x_of(i) << ',' << value_to_y(epochs[i]) << ' ';
        out << "'/>\n";
        for (size_t i = 0; i < n; ++i)
            out << "<circle cx='" << x_of(i) << "' cy='" << value_to_y(epochs[i]) << "' r='3.5' fill='" << color
                << "'/>\n";
    };
    auto loss_y = [&](const EpochStats &e) { return kTop + plot_h * (1 - e.train_loss / max_loss); };
    auto acc_y = [&](const EpochStats &e) { return kTop + plot_h * (1 - e.test_accuracy); };
    out << "<svg xmlns='http://www.w3.org/2000/svg' width='" << kW << "' height='" << kH
        << "' font-family='sans-serif' font-size='12'>\n<rect width='100%' height='100%' fill='white'/>\n";
    out << "<text x='" << kW / 2 << "' y='18' text-anchor='middle' font-size='14'>anydnn LeNet-5 on MNIST</text>\n";
    out << "<rect x='" << kLeft << "' y='" << kTop << "' width='" << plot_w << "' height='" << plot_h
        << "' fill='none' stroke='#888'/>\n";
    for (int t = 0; t <= 4; ++t) {
        const double y = kTop + plot_h * t / 4.0;
        out << "<line x1='" << kLeft << "' x2='" << kLeft + plot_w << "' y1='" << y << "' y2='" << y
            << "' stroke='#eee'/>\n";
        char loss_label[32], acc_label[32];
        std::snprintf(loss_label, sizeof loss_label, "%.2f", max_loss * (1 - t / 4.0));
        std::snprintf(acc_label, sizeof acc_label, "%.0f%%", 100 * (1 - t / 4.0));
        out << "<text x='" << kLeft - 6 << "' y='" << y + 4 << "' text-anchor='end' fill='#c0392b'>" << loss_label
            << "</text>\n";
        out << "<text x='" << kLeft + plot_w + 6 << "' y='" << y + 4 << "' fill='#2471a3'>" << acc_label
            << "</text>\n";
    }
    for (size_t i = 0; i < n; ++i)
        out << "<text x='" << x_of(i) << "' y='" << kTop + plot_h + 16 << "' text-anchor='middle'>" << i + 1
            << "</text>\n";
    out << "<text x='" << kLeft + plot_w / 2 << "' y='" << kH - 12 << "' text-anchor='middle'>epoch</text>\n";
    polyline("#c0392b", loss_y);
    polyline("#2471a3", acc_y);
    out << "<text x='" << kLeft + 8 << "' y='" << kTop + 16 << "' fill='#c0392b'>train loss</text>\n";
    out << "<text x='" << kLeft + 8 << "' y='" << kTop + 32 << "' fill='#2471a3'>test accuracy</text>\n</svg>\n";
}

}  // namespace mnist
