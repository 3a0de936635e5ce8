// Families-file and mapping-file parsers on arbitrary bytes.
#include "io/families_file.hpp"
#include "io/gene_mapping.hpp"
#include "io/input_error.hpp"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    try {
        (void)gpurec::parseFamilies(text, "fuzz");
    } catch (const gpurec::InputError&) {
    }
    try {
        (void)gpurec::GeneMapping::parse(text, "fuzz").speciesOf("a_1");
    } catch (const gpurec::InputError&) {
    }
    return 0;
}
