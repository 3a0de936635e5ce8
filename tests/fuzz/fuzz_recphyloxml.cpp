// RecPhyloXML reader on arbitrary bytes. A document it accepts and the writer can write must read
// back to the same document: writing it again gives the same text.
#include "fuzz_support.hpp"
#include "io/input_error.hpp"
#include "recon/recphyloxml.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    gpurec::RecPhyloDocument doc;
    try {
        doc = gpurec::parseRecPhyloXml(text, "fuzz");
    } catch (const gpurec::InputError&) {
        return 0;
    }
    const gpurec::XmlLayout layout = size % 2 == 0 ? gpurec::XmlLayout::Indented : gpurec::XmlLayout::Compact;
    std::string written;
    try {
        written = gpurec::toRecPhyloXml(doc.species, doc.reconciliations, layout);
    } catch (const std::invalid_argument&) {
        return 0; // the reader is lenient; the writer refuses what it cannot represent
    }
    const gpurec::RecPhyloDocument again = gpurec::parseRecPhyloXml(written, "written");
    if (gpurec::toRecPhyloXml(again.species, again.reconciliations, layout) != written) __builtin_trap();
    return 0;
}
