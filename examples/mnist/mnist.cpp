// Trains LeNet-5 on MNIST with anydnn alone and reports how it went: the
// demo of the README. Every layer's math (forward, backward, loss, update)
// is an anydnn call (lenet.cpp); this file is the loop and the reporting.
//
//   mnist [--data DIR] [--epochs N] [--batch N] [--lr X] [--threads N]
//         [--seed N] [--limit N] [--save FILE] [--load FILE]
//         [--predict FILE.pgm] [--svg FILE] [--check]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dataset.hpp"
#include "lenet.hpp"
#include "report.hpp"

#ifndef MNIST_DEFAULT_DATA
#define MNIST_DEFAULT_DATA "data/mnist-10k"
#endif

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Options {
    std::string data = MNIST_DEFAULT_DATA, save, load, predict, svg = "mnist-curve.svg";
    int epochs = 4, batch = 32, threads = 0, limit = 0;
    float lr = 0.04f, momentum = 0.9f, weight_decay = 5e-4f;
    uint64_t seed = 1;
    bool check = false;
};

[[noreturn]] void usage(const char *why) {
    std::fprintf(stderr,
                 "mnist: %s\n"
                 "usage: mnist [--data DIR] [--epochs N] [--batch N] [--lr X] [--threads N] [--seed N]\n"
                 "             [--limit N] [--save FILE] [--load FILE] [--predict FILE.pgm] [--svg FILE] [--check]\n"
                 "  --data DIR   mnist-10k (images/labels-idx?-ubyte.gz: 8,500 train, 1,500 test) or the full\n"
                 "               MNIST files (train-*/t10k-*-idx?-ubyte[.gz]); default " MNIST_DEFAULT_DATA "\n"
                 "  --epochs 0   with --load: evaluate (or --predict) without training\n"
                 "  --limit N    train on the first N training digits only\n"
                 "  --check      exit 1 unless the loss fell and the test accuracy is well above chance\n",
                 why);
    std::exit(2);
}

Options parse(int argc, char **argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage((a + " needs a value").c_str());
            return argv[++i];
        };
        auto number = [&](long lo) {
            const std::string v = value();
            char *end = nullptr;
            const long n = std::strtol(v.c_str(), &end, 10);
            if (*end != '\0' || n < lo) usage((a + " " + v + ": not a number >= " + std::to_string(lo)).c_str());
            return n;
        };
        if (a == "--data") o.data = value();
        else if (a == "--epochs") o.epochs = static_cast<int>(number(0));
        else if (a == "--batch") o.batch = static_cast<int>(number(1));
        else if (a == "--threads") o.threads = static_cast<int>(number(1));
        else if (a == "--limit") o.limit = static_cast<int>(number(1));
        else if (a == "--seed") o.seed = static_cast<uint64_t>(number(0));
        else if (a == "--lr") o.lr = std::strtof(value().c_str(), nullptr);
        else if (a == "--save") o.save = value();
        else if (a == "--load") o.load = value();
        else if (a == "--predict") o.predict = value();
        else if (a == "--svg") o.svg = value();
        else if (a == "--check") o.check = true;
        else if (a == "--help" || a == "-h") usage("train LeNet-5 on MNIST with anydnn");
        else usage(("unknown option " + a).c_str());
    }
    return o;
}

// The files of --data: the 10k set split 8,500 / 1,500, or MNIST's own split.
void load_data(const std::string &dir, mnist::Digits *train, mnist::Digits *test) {
    namespace fs = std::filesystem;
    auto find = [&](const std::string &stem) {
        for (const std::string &name : {stem + ".gz", stem})
            if (fs::exists(fs::path(dir) / name)) return (fs::path(dir) / name).string();
        return std::string();
    };
    const std::string images = find("images-idx3-ubyte"), labels = find("labels-idx1-ubyte");
    if (!images.empty() && !labels.empty()) {
        const mnist::Digits all = mnist::read_idx(images, labels);
        const int n_test = all.count() * 3 / 20;  // 1,500 of 10,000
        *train = mnist::slice(all, 0, all.count() - n_test);
        *test = mnist::slice(all, all.count() - n_test, n_test);
        return;
    }
    const std::string tri = find("train-images-idx3-ubyte"), trl = find("train-labels-idx1-ubyte"),
                      tei = find("t10k-images-idx3-ubyte"), tel = find("t10k-labels-idx1-ubyte");
    if (tri.empty() || trl.empty() || tei.empty() || tel.empty())
        throw std::runtime_error(dir + ": no images-idx3-ubyte(.gz) + labels-idx1-ubyte(.gz), nor MNIST's "
                                       "train-*/t10k-* IDX files");
    *train = mnist::read_idx(tri, trl);
    *test = mnist::read_idx(tei, tel);
}

// Fisher-Yates with the example's own generator: the same order on every
// standard library.
void shuffle(std::vector<int> &v, std::mt19937_64 &rng) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng() % i]);
}

// Accuracy on d, and counts[truth][predicted]; batches of up to 500 and one
// network for the rest.
double evaluate(anydnnHandle_t h, mnist::Params &p, const mnist::Digits &d, std::vector<std::vector<int>> *counts) {
    counts->assign(10, std::vector<int>(10, 0));
    const int b = std::min(500, d.count());
    mnist::LeNet net(h, p, b);
    std::unique_ptr<mnist::LeNet> tail;
    std::vector<int> pred(static_cast<size_t>(b));
    int right = 0;
    for (int first = 0; first < d.count(); first += b) {
        const int n = std::min(b, d.count() - first);
        mnist::LeNet *use = &net;
        if (n < b) {
            tail = std::make_unique<mnist::LeNet>(h, p, n);
            use = tail.get();
        }
        use->forward(d.images.data() + static_cast<size_t>(first) * mnist::kPixels);
        use->predict(pred.data());
        for (int i = 0; i < n; ++i) {
            const int truth = d.labels[static_cast<size_t>(first + i)];
            ++(*counts)[truth][pred[i]];
            right += pred[i] == truth;
        }
    }
    return d.count() > 0 ? static_cast<double>(right) / d.count() : 0;
}

void predict_one(anydnnHandle_t h, mnist::Params &p, const std::string &path) {
    const std::vector<float> image = mnist::read_pgm(path);
    mnist::LeNet net(h, p, 1);
    net.forward(image.data());
    int digit = 0;
    net.predict(&digit);
    std::printf("%s: %d (p = %.3f)\n   ", path.c_str(), digit, net.probabilities()[static_cast<size_t>(digit)]);
    for (int k = 0; k < 10; ++k) std::printf(" %d:%.2f", k, net.probabilities()[static_cast<size_t>(k)]);
    std::printf("\n");
}

int run(const Options &o) {
    const auto t_start = Clock::now();
    mnist::Handle handle;
    if (o.threads > 0) MNIST_CHECK(anydnnSetNumThreads(handle, o.threads));
    mnist::Params params;
    params.init(o.seed);
    if (!o.load.empty()) params.load(o.load);

    if (o.epochs == 0 && !o.predict.empty()) {
        predict_one(handle, params, o.predict);
        return 0;
    }
    mnist::Digits train, test;
    load_data(o.data, &train, &test);
    if (o.limit > 0 && o.limit < train.count()) train = mnist::slice(train, 0, o.limit);
    const int batch = std::min(o.batch, train.count());
    std::printf("anydnn %zu  LeNet-5 on %s: %d training digits, %d test digits, batch %d, %d epochs\n",
                anydnnGetVersion(), o.data.c_str(), train.count(), test.count(), batch, o.epochs);

    mnist::LeNet net(handle, params, batch);
    std::vector<int> order(static_cast<size_t>(train.count()));
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::mt19937_64 rng(o.seed);
    std::vector<float> images(static_cast<size_t>(batch) * mnist::kPixels);
    std::vector<uint8_t> labels(static_cast<size_t>(batch));
    std::vector<mnist::EpochStats> history;
    std::vector<std::vector<int>> counts;
    double first_loss = -1;
    const int steps = train.count() / batch;  // the remainder waits for the next shuffle
    for (int epoch = 1; epoch <= o.epochs; ++epoch) {
        shuffle(order, rng);
        // A step decay: the last epochs refine with smaller steps.
        const float lr = o.lr * (epoch > (o.epochs + 1) / 2 ? 0.2f : 1.0f);
        mnist::ProgressBar bar(epoch, o.epochs, steps * batch);
        const auto t_epoch = Clock::now();
        double loss_sum = 0;
        for (int s = 0; s < steps; ++s) {
            for (int i = 0; i < batch; ++i) {
                const int idx = order[static_cast<size_t>(s * batch + i)];
                std::memcpy(images.data() + static_cast<size_t>(i) * mnist::kPixels,
                            train.images.data() + static_cast<size_t>(idx) * mnist::kPixels,
                            mnist::kPixels * sizeof(float));
                labels[static_cast<size_t>(i)] = train.labels[static_cast<size_t>(idx)];
            }
            net.forward(images.data());
            const float loss = net.backward(labels.data());
            net.sgd_step(lr, o.momentum, o.weight_decay);
            if (first_loss < 0) first_loss = loss;
            loss_sum += loss;
            bar.update((s + 1) * batch, loss_sum / (s + 1), seconds_since(t_epoch));
        }
        bar.finish(steps * batch, steps > 0 ? loss_sum / steps : 0, seconds_since(t_epoch));
        mnist::EpochStats e;
        e.train_loss = steps > 0 ? loss_sum / steps : 0;
        e.test_accuracy = evaluate(handle, params, test, &counts);
        history.push_back(e);
        std::printf("         train loss %.4f   test accuracy %.2f%%\n", e.train_loss, 100 * e.test_accuracy);
    }
    const double accuracy = history.empty() ? evaluate(handle, params, test, &counts) : history.back().test_accuracy;
    std::printf("\ntest accuracy %.2f%% on %d digits\n", 100 * accuracy, test.count());
    mnist::print_confusion(counts);
    if (!history.empty()) {
        mnist::write_curve_svg(o.svg, history);
        std::printf("training curve: %s\n", std::filesystem::absolute(o.svg).string().c_str());
    }
    if (!o.save.empty()) {
        params.save(o.save);
        std::printf("weights saved to %s\n", o.save.c_str());
    }
    if (!o.predict.empty()) predict_one(handle, params, o.predict);
    std::printf("total time %.1f s\n", seconds_since(t_start));
    if (o.check) {
        const bool fell = !history.empty() && history.back().train_loss < first_loss;
        const bool learned = accuracy > 0.5;
        std::printf("check: loss %s (first batch %.3f, last epoch %.3f), accuracy %s chance\n",
                    fell ? "fell" : "did NOT fall", first_loss, history.empty() ? 0.0 : history.back().train_loss,
                    learned ? "well above" : "NOT well above");
        return fell && learned ? 0 : 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    try {
        return run(parse(argc, argv));
    } catch (const std::exception &e) {
        std::fprintf(stderr, "mnist: %s\n", e.what());
        return 1;
    }
}
