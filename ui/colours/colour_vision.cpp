#include "colours/colour_vision.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace gpurec::ui {

namespace {
using Matrix = std::array<std::array<double, 3>, 3>;

// Machado et al. (2009), severity 1.0, on linear RGB.
const Matrix& visionMatrix(ColourVision vision) {
    static const Matrix identity = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    static const Matrix protanopia = {
        {{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}}};
    static const Matrix deuteranopia = {
        {{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}}};
    static const Matrix tritanopia = {
        {{1.255528, -0.076749, -0.178779}, {-0.078411, 0.930809, 0.147602}, {0.004733, 0.691367, 0.303900}}};
    switch (vision) {
    case ColourVision::Protanopia:
        return protanopia;
    case ColourVision::Deuteranopia:
        return deuteranopia;
    case ColourVision::Tritanopia:
        return tritanopia;
    case ColourVision::Normal:
        break;
    }
    return identity;
}

double toLinear(std::uint8_t v) {
    const double c = v / 255.0;
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

std::uint8_t fromLinear(double c) {
    c = std::clamp(c, 0.0, 1.0);
    const double s = c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1 / 2.4) - 0.055;
    return static_cast<std::uint8_t>(std::lround(s * 255.0));
}

double degrees(double radians) {
    return radians * 180.0 / std::numbers::pi;
}
double radians(double degrees) {
    return degrees * std::numbers::pi / 180.0;
}
} // namespace

const char* colourVisionName(ColourVision vision) {
    switch (vision) {
    case ColourVision::Normal:
        return "normal";
    case ColourVision::Protanopia:
        return "protanopia";
    case ColourVision::Deuteranopia:
        return "deuteranopia";
    case ColourVision::Tritanopia:
        return "tritanopia";
    }
    return "?";
}

Rgb simulate(Rgb colour, ColourVision vision) {
    if (vision == ColourVision::Normal) return colour;
    const Matrix& m = visionMatrix(vision);
    const std::array<double, 3> linear = {toLinear(colour.r), toLinear(colour.g), toLinear(colour.b)};
    std::array<std::uint8_t, 3> out{};
    for (int i = 0; i < 3; ++i)
        out[i] = fromLinear(m[i][0] * linear[0] + m[i][1] * linear[1] + m[i][2] * linear[2]);
    return {out[0], out[1], out[2]};
}

Lab toLab(Rgb colour) {
    const double r = toLinear(colour.r), g = toLinear(colour.g), b = toLinear(colour.b);
    // sRGB primaries to XYZ, normalised by the D65 white.
    const double x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
    const double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
    const double z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
    constexpr double delta = 6.0 / 29.0;
    auto f = [](double t) {
        return t > delta * delta * delta ? std::cbrt(t) : t / (3 * delta * delta) + 4.0 / 29.0;
    };
    return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

double ciede2000(const Lab& x, const Lab& y) {
    const double pow25 = std::pow(25.0, 7);
    const double meanC = (std::hypot(x.a, x.b) + std::hypot(y.a, y.b)) / 2;
    const double g = 0.5 * (1 - std::sqrt(std::pow(meanC, 7) / (std::pow(meanC, 7) + pow25)));
    const double a1 = (1 + g) * x.a, a2 = (1 + g) * y.a;
    const double c1 = std::hypot(a1, x.b), c2 = std::hypot(a2, y.b);
    auto hue = [](double b, double a) {
        if (a == 0 && b == 0) return 0.0;
        const double h = degrees(std::atan2(b, a));
        return h < 0 ? h + 360 : h;
    };
    const double h1 = hue(x.b, a1), h2 = hue(y.b, a2);
    const bool grey = c1 * c2 == 0;
    double dh = grey ? 0 : h2 - h1;
    if (dh > 180) dh -= 360;
    if (dh < -180) dh += 360;
    const double dL = y.L - x.L, dC = c2 - c1;
    const double dH = 2 * std::sqrt(c1 * c2) * std::sin(radians(dh / 2));
    const double meanL = (x.L + y.L) / 2, meanCp = (c1 + c2) / 2;
    double meanH = h1 + h2;
    if (!grey) {
        if (std::abs(h1 - h2) <= 180)
            meanH = (h1 + h2) / 2;
        else
            meanH = h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2;
    }
    const double t = 1 - 0.17 * std::cos(radians(meanH - 30)) + 0.24 * std::cos(radians(2 * meanH)) +
                     0.32 * std::cos(radians(3 * meanH + 6)) - 0.20 * std::cos(radians(4 * meanH - 63));
    const double rotation = 30 * std::exp(-std::pow((meanH - 275) / 25, 2));
    const double rc = 2 * std::sqrt(std::pow(meanCp, 7) / (std::pow(meanCp, 7) + pow25));
    const double sl = 1 + 0.015 * (meanL - 50) * (meanL - 50) / std::sqrt(20 + (meanL - 50) * (meanL - 50));
    const double sc = 1 + 0.045 * meanCp, sh = 1 + 0.015 * meanCp * t;
    const double rt = -std::sin(radians(2 * rotation)) * rc;
    const double l = dL / sl, c = dC / sc, h = dH / sh;
    return std::sqrt(l * l + c * c + h * h + rt * c * h);
}

double difference(Rgb x, Rgb y, ColourVision vision) {
    return ciede2000(toLab(simulate(x, vision)), toLab(simulate(y, vision)));
}

const std::array<Rgb, kCategoricalColours>& categoricalPalette() {
    // Okabe–Ito: vermillion, blue, bluish green, reddish purple, orange, sky blue, black, yellow.
    static const std::array<Rgb, kCategoricalColours> palette = {
        Rgb{213, 94, 0},  Rgb{0, 114, 178},  Rgb{0, 158, 115}, Rgb{204, 121, 167},
        Rgb{230, 159, 0}, Rgb{86, 180, 233}, Rgb{0, 0, 0},     Rgb{240, 228, 66}};
    return palette;
}

Rgb categoricalColour(int index) {
    const int k = ((index % kCategoricalColours) + kCategoricalColours) % kCategoricalColours;
    return categoricalPalette()[k];
}

int categoricalDash(int index) {
    return std::max(index, 0) / kCategoricalColours;
}

} // namespace gpurec::ui
