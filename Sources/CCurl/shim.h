#ifndef VARIABLY_CCURL_SHIM_H
#define VARIABLY_CCURL_SHIM_H

// The system's libcurl, as VariablyHTTP's Linux transport uses it. libcurl's option setters and
// info getters are C variadic functions, which Swift cannot call: each one used gets a typed wrapper
// here, and the macros Swift does not import (bit-or'ed flags, unions) a function that reads them.

#include <curl/curl.h>

/// The type of `CURLOPT_WRITEFUNCTION` and `CURLOPT_HEADERFUNCTION`.
typedef size_t (*ccurl_data_callback)(char *bytes, size_t size, size_t count, void *context);

static inline CURLcode ccurl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

static inline CURLcode ccurl_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode ccurl_easy_setopt_off_t(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode ccurl_easy_setopt_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode ccurl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode ccurl_easy_setopt_list(CURL *easy, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode ccurl_easy_setopt_callback(CURL *easy, CURLoption option, ccurl_data_callback value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode ccurl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}

static inline CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

/// Whether `message` says a transfer is done; then `ccurl_message_result` is its outcome.
static inline int ccurl_message_is_done(const CURLMsg *message) { return message->msg == CURLMSG_DONE; }

static inline CURLcode ccurl_message_result(const CURLMsg *message) { return message->data.result; }

static inline long ccurl_multiplex(void) { return CURLPIPE_MULTIPLEX; }

/// The running libcurl's version, e.g. `7.88.1`.
static inline const char *ccurl_version(void) { return curl_version_info(CURLVERSION_NOW)->version; }

/// Whether the running libcurl speaks TLS (`https://`).
static inline int ccurl_supports_tls(void) {
    return (curl_version_info(CURLVERSION_NOW)->features & CURL_VERSION_SSL) != 0;
}

/// Whether the running libcurl speaks HTTP/2.
static inline int ccurl_supports_http2(void) {
    return (curl_version_info(CURLVERSION_NOW)->features & CURL_VERSION_HTTP2) != 0;
}

#endif
