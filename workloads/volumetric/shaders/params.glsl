// Where a layer's parameters live: Heap (inference: immutable, packed) or Globals (training:
// the optimiser writes them).
#ifdef PARAMS_IN_GLOBALS
#define PARAM_U globals_u
#define PARAM_F globals_f
#else
#define PARAM_U heap_u
#define PARAM_F heap_f
#endif
