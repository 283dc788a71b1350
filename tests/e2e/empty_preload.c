/* A library that does nothing, to preload next to the agent in tests. */
int rperf_test_empty_preload;
