#pragma once
// Runs the gpurec command-line tool (GPUREC_CLI_PATH, set by tests/CMakeLists.txt) for the
// end-to-end tests.
#include <QProcess>
#include <QString>
#include <QStringList>
#include <string>

namespace gpurec::test {

struct CliRun {
    int exitCode;
    QString out, err;
};

inline CliRun runGpurec(const QStringList& args) {
    QProcess p;
    p.start(GPUREC_CLI_PATH, args);
    if (!p.waitForFinished(600000)) return {-1, "", "timeout"};
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

inline QString q(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace gpurec::test
