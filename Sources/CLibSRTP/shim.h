#include <srtp2/srtp.h>
#include <srtp2/cipher.h>
#include <srtp2/auth.h>
