#pragma once
// Numbers shown in fields the user edits: the shortest text that reads back as the same double
// ("0.1", "1e-5"), not the 17-digit round-trip form ("0.10000000000000001") of the output files.
#include <QLocale>
#include <QRegularExpression>
#include <QString>

namespace gpurec::ui {

inline QString shortestNumber(double v) {
    static const QRegularExpression exponent("e\\+?(-?)0*(\\d)");
    return QString::number(v, 'g', QLocale::FloatingPointShortest).replace(exponent, "e\\1\\2");
}

} // namespace gpurec::ui
