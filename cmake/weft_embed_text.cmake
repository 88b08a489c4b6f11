# Writes the engine's GLSL includes as C++ strings for the run-time compiler.
file(READ "${GLSL}" glsl)
file(READ "${LAYOUT}" layout)
file(WRITE "${OUT}" "// Generated: do not edit.\nnamespace weft {\nextern const char* const kWeftGlslSource;\nextern const char* const kWeftLayoutSource;\nconst char* const kWeftGlslSource = R\"weft_src(${glsl})weft_src\";\nconst char* const kWeftLayoutSource = R\"weft_src(${layout})weft_src\";\n}\n")
