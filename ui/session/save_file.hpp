#pragma once
// Workbench exports written through QSaveFile: the file appears under its name only when complete,
// so a failed or interrupted export never leaves a truncated file (the core's OutputFile rule).
#include <QSaveFile>
#include <QString>
#include <functional>
#include <string>

namespace gpurec::ui {

// False (and the old file untouched) when the file cannot be written completely.
bool saveTextFile(const QString& path, const std::string& text);
// `write` fills the device and returns false on failure; the file is committed only after true.
bool saveFile(const QString& path, const std::function<bool(QSaveFile&)>& write);

} // namespace gpurec::ui
