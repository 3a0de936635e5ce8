#include "session/save_file.hpp"

namespace gpurec::ui {

bool saveFile(const QString& path, const std::function<bool(QSaveFile&)>& write) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return false;
    if (!write(file)) {
        file.cancelWriting();
        return false;
    }
    return file.commit();
}

bool saveTextFile(const QString& path, const std::string& text) {
    return saveFile(path, [&](QSaveFile& file) {
        return file.write(text.data(), static_cast<qint64>(text.size())) == static_cast<qint64>(text.size());
    });
}

} // namespace gpurec::ui
