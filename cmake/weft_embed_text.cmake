# Writes the engine's GLSL includes as C++ strings for the run-time compiler.
file(READ "${GLSL}" glsl)
file(READ "${LAYOUT}" layout)
file(READ "${ARGS}" args)
file(WRITE "${OUT}" "// Generated: do not edit.
namespace weft {
extern const char* const kWeftGlslSource;
extern const char* const kWeftLayoutSource;
extern const char* const kWeftArgsSource;
const char* const kWeftGlslSource = R\"weft_src(${glsl})weft_src\";
const char* const kWeftLayoutSource = R\"weft_src(${layout})weft_src\";
const char* const kWeftArgsSource = R\"weft_src(${args})weft_src\";
}
")
