// A self-signed certificate for `stats.example.test` (EC P-256, valid until 2126) and its key, for tests
// that put the simulator behind TLS: the CLI trusts it through NODE_EXTRA_CA_CERTS. Test material only:
// it guards nothing. Made with
//   openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500 \
//     -subj "/CN=stats.example.test" -addext "subjectAltName=DNS:stats.example.test"
export const TLS_HOST = 'stats.example.test';

export const TLS_CERT = `-----BEGIN CERTIFICATE-----
MIIBsDCCAVagAwIBAgIUXEnzjJ/qNQrshSJ3RS0S/JP4locwCgYIKoZIzj0EAwIw
HTEbMBkGA1UEAwwSc3RhdHMuZXhhbXBsZS50ZXN0MCAXDTI2MTEyNjE4NTAxM1oY
DzIxMjYxMTAyMTg1MDEzWjAdMRswGQYDVQQDDBJzdGF0cy5leGFtcGxlLnRlc3Qw
WTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQlDOMRXX0/8h7bAd/Ny1ZthtH2/miA
zcc288qNf56RsS1CWuCe4Wp7ObV8THT1eKkrfZLi/hc5MeVnPX4mZWVmo3IwcDAd
BgNVHQ4EFgQU2DQmsRWlJvrduIsi8xfm/xBGoBUwHwYDVR0jBBgwFoAU2DQmsRWl
JvrduIsi8xfm/xBGoBUwDwYDVR0TAQH/BAUwAwEB/zAdBgNVHREEFjAUghJzdGF0
cy5leGFtcGxlLnRlc3QwCgYIKoZIzj0EAwIDSAAwRQIhAP/ik8prztCUZH3P53oJ
t2npGbgTvaF5y6FZ9HO7nyKPAiBZG9Z6tBSTgHMiVRDd6YobGRlzHzPw8FFopzq6
vIpIqQ==
-----END CERTIFICATE-----
`;

export const TLS_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg5Ivfg0tZw+b/QS6H
cbLnxauP5Q1SP75kJciMWzihwMyhRANCAAQlDOMRXX0/8h7bAd/Ny1ZthtH2/miA
zcc288qNf56RsS1CWuCe4Wp7ObV8THT1eKkrfZLi/hc5MeVnPX4mZWVm
-----END PRIVATE KEY-----
`;
