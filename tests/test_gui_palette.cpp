// The palette of families and gene lineages stays readable with colour-vision deficiencies: the
// CIEDE2000 difference is checked against Sharma, Wu and Dalal's published pairs, the dichromacy
// simulation against what it must do (greys unchanged, red and green merged for a deuteranope),
// and every pair of palette colours against a floor under normal vision and each simulation.
#include "colours/colour_vision.hpp"

#include <QtTest>

using namespace gpurec::ui;

namespace {
// ΔE00 ≈ 2 is a just-noticeable difference between large patches side by side; thin lines and
// small marks far apart on a drawing need several times that. 10 (about five JNDs) keeps colours
// apart in a legend and along lines, and is what Okabe and Ito's set keeps under all visions.
constexpr double kSmallestDifference = 10.0;
} // namespace

class GuiPalette : public QObject {
    Q_OBJECT
  private slots:
    void ciede2000MatchesThePublishedPairs() {
        struct Pair {
            Lab x, y;
            double expected;
        };
        // Sharma, Wu and Dalal (2005), table 1, pairs 1, 7, 17 and 18.
        const Pair pairs[] = {{{50, 2.6772, -79.7751}, {50, 0, -82.7485}, 2.0425},
                              {{50, 0, 0}, {50, -1, 2}, 2.3669},
                              {{50, 2.5, 0}, {73, 25, -18}, 27.1492},
                              {{50, 2.5, 0}, {61, -5, 29}, 22.8977}};
        for (const Pair& p : pairs) {
            QVERIFY2(std::abs(ciede2000(p.x, p.y) - p.expected) < 1e-4,
                     qPrintable(QString::number(ciede2000(p.x, p.y))));
            QVERIFY(std::abs(ciede2000(p.y, p.x) - p.expected) < 1e-4);
        }
        const Lab white = toLab({255, 255, 255});
        QVERIFY(std::abs(white.L - 100) < 1e-3 && std::abs(white.a) < 1e-2 && std::abs(white.b) < 1e-2);
    }

    void simulationMergesWhatADichromatConfuses() {
        for (ColourVision vision : kColourVisions)
            for (std::uint8_t v : {0, 128, 255}) { // greys stay grey (each matrix row sums to 1)
                const Rgb grey = simulate({v, v, v}, vision);
                QVERIFY2(std::abs(grey.r - v) <= 1 && std::abs(grey.g - v) <= 1 && std::abs(grey.b - v) <= 1,
                         colourVisionName(vision));
            }
        const Rgb red{200, 60, 40}, green{90, 130, 40};
        QVERIFY(difference(red, green, ColourVision::Normal) > 30);
        QVERIFY(difference(red, green, ColourVision::Deuteranopia) < kSmallestDifference);
        QVERIFY(difference(red, green, ColourVision::Protanopia) < 2 * kSmallestDifference);
        // Tritanopes confuse blue and green, not red and green.
        QVERIFY(difference(red, green, ColourVision::Tritanopia) > 30);
        QVERIFY(difference({0, 140, 230}, {0, 160, 160}, ColourVision::Tritanopia) < kSmallestDifference);
    }

    void everyPairOfPaletteColoursStaysApart() {
        const auto& palette = categoricalPalette();
        for (ColourVision vision : kColourVisions)
            for (int i = 0; i < kCategoricalColours; ++i)
                for (int j = i + 1; j < kCategoricalColours; ++j) {
                    const double d = difference(palette[i], palette[j], vision);
                    QVERIFY2(d >= kSmallestDifference,
                             qPrintable(QString("colours %1 and %2 under %3: ΔE00 %4")
                                            .arg(i)
                                            .arg(j)
                                            .arg(colourVisionName(vision))
                                            .arg(d)));
                }
        // Beyond the palette, colours repeat with the next dash pattern.
        QCOMPARE(categoricalColour(kCategoricalColours + 2).r, palette[2].r);
        QCOMPARE(categoricalDash(kCategoricalColours - 1), 0);
        QCOMPARE(categoricalDash(kCategoricalColours + 2), 1);
    }
};

QTEST_MAIN(GuiPalette)
#include "test_gui_palette.moc"
