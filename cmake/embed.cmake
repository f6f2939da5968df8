# Turns a data file into a C++ source defining `std::string_view NAME()`.
# Usage: cmake -DINPUT=... -DOUTPUT=... -DNAME=... -DNAMESPACE=... -P embed.cmake
file(READ "${INPUT}" content)
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by cmake/embed.cmake; do not edit.\n"
  "#include <string_view>\n"
  "namespace ${NAMESPACE} {\n"
  "std::string_view ${NAME}() {\n"
  "  static constexpr char kData[] = R\"podlimits_embed(${content})podlimits_embed\";\n"
  "  return std::string_view(kData, sizeof(kData) - 1);\n"
  "}\n"
  "}  // namespace ${NAMESPACE}\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
