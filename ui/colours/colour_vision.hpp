#pragma once
// Colour-vision checks for the categorical palettes (Qt-free): simulated dichromacy (Machado,
// Oliveira and Fernandes 2009, severity 1), CIELAB under D65 and the CIEDE2000 colour difference
// (Sharma, Wu and Dalal 2005). The palette of families and gene lineages is chosen so that every
// pair of its colours stays apart under each simulation (tests/test_gui_palette.cpp).
#include <array>
#include <cstdint>

namespace gpurec::ui {

struct Rgb {
    std::uint8_t r = 0, g = 0, b = 0;
};

struct Lab {
    double L = 0, a = 0, b = 0;
};

enum class ColourVision { Normal, Protanopia, Deuteranopia, Tritanopia };
inline constexpr std::array<ColourVision, 4> kColourVisions = {
    ColourVision::Normal, ColourVision::Protanopia, ColourVision::Deuteranopia, ColourVision::Tritanopia};
const char* colourVisionName(ColourVision vision); // "normal", "protanopia", ...

// An sRGB colour as seen with the given vision: the matrix acts on linear RGB, clamped to [0, 1].
Rgb simulate(Rgb colour, ColourVision vision);
// CIELAB of an sRGB colour (D65 white).
Lab toLab(Rgb colour);
// CIEDE2000 difference (kL = kC = kH = 1).
double ciede2000(const Lab& x, const Lab& y);
// CIEDE2000 between two colours as seen with `vision`.
double difference(Rgb x, Rgb y, ColourVision vision);

// The palette of families and gene lineages: the eight colours of Okabe and Ito (2008), ordered
// so the first ones stand out most on the light tubes. Beyond eight, colours repeat with another
// dash pattern (categoricalDash).
inline constexpr int kCategoricalColours = 8;
const std::array<Rgb, kCategoricalColours>& categoricalPalette();
Rgb categoricalColour(int index); // index modulo the palette size
int categoricalDash(int index);   // 0 for the first eight, 1 for the next eight, …

} // namespace gpurec::ui
