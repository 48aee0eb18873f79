#ifndef SHARED_H
#define SHARED_H
#endif
