// tinyobjloader's implementation, compiled from the single header of Debian's
// libtinyobjloader-dev into wr_core, so that libwr.so needs no libtinyobjloader.so at run time.
// Its symbols are hidden like the rest of wr_core (hidden visibility, and src/api/libwr.map keeps
// only wr_*), so a simulator that links its own tinyobjloader, of any version, clashes with none.
// The header is used in float mode (no TINYOBJLOADER_USE_DOUBLE), as obj_loader.cpp expects.
#define TINYOBJLOADER_IMPLEMENTATION
#include <tiny_obj_loader.h>
