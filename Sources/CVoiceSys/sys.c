#include "CVoiceSys.h"
