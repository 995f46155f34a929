// G.722 (ITU-T, 64 kbit/s sub-band ADPCM at 16 kHz) from spandsp: only the codec's header and
// the declarations it needs, not <spandsp.h>, which pulls in libtiff for fax.
#include <stdint.h>
#include <spandsp/telephony.h>
#include <spandsp/g722.h>
