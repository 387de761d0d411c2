module github.com/vigiles/action

go 1.24.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/google/go-github/v62 v62.0.0
	github.com/google/nftables v0.3.0
	github.com/mdlayher/netlink v1.7.3-0.20250113171957-fbb4dce95f42
	github.com/sethvargo/go-githubactions v1.3.0
	github.com/spf13/pflag v1.1.0
	golang.org/x/net v0.33.0
	golang.org/x/sys v0.28.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/google/go-querystring v1.1.0 // indirect
	github.com/mdlayher/socket v0.5.0 // indirect
	golang.org/x/sync v0.6.0 // indirect
)
