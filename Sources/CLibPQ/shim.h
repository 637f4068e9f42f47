#ifndef SPOTTER_CLIBPQ_SHIM_H
#define SPOTTER_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
