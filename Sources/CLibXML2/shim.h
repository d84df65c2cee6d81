#ifndef ALLSPARK_LIBXML2_SHIM_H
#define ALLSPARK_LIBXML2_SHIM_H
/* libxml2's parser and tree, for the ONVIF SOAP reader (Swift walks the tree itself).
 * Debian builds libxml2 with ICU, whose headers encoding.h would pull in clash with the
 * copy Foundation carries; nothing here uses libxml2's ICU converters (the requests are
 * UTF-8), so they stay out. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#endif
