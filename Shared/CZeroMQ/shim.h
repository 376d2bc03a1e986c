#ifndef WIDGETBUS_CZEROMQ_SHIM_H
#define WIDGETBUS_CZEROMQ_SHIM_H
#include <zmq.h>
#include <errno.h>
#endif
