// MNIST in its IDX files (gzip-compressed or not) and single PGM images.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mnist {

constexpr int kSide = 28;                   // digits are 28 x 28
constexpr int kPixels = kSide * kSide;

struct Digits {
    std::vector<float> images;              // count x 784, pixels scaled to [0, 1]
    std::vector<uint8_t> labels;            // count values 0..9
    int count() const { return static_cast<int>(labels.size()); }
};

// An images file (magic 0x803, count, 28, 28, pixels) and its labels file
// (magic 0x801, count, labels). Throws std::runtime_error with the path and
// what is wrong.
Digits read_idx(const std::string &images_path, const std::string &labels_path);

// Digits [first, first + count) of d.
Digits slice(const Digits &d, int first, int count);

// A binary (P5) PGM of 28 x 28 pixels, 8 bits, white digit on black as in
// MNIST; scaled to [0, 1]. Throws std::runtime_error.
std::vector<float> read_pgm(const std::string &path);

}  // namespace mnist
