// epoll(7), which Swift's Glibc module leaves out; locd-bench drives 10,000 connections with it.
#include <sys/epoll.h>
