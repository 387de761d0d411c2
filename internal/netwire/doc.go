// Package netwire joins the sandbox engine and the egress layer, which
// never import each other: it adapts *egress.Layer to sandbox.Network for
// the two binaries that need it (vigiles, and vigiles-sandbox, the lean
// binary of the in-sandbox roles). It must hold no logic of its own, but
// for the check of the egress options every caller takes (ValidateEgress).
package netwire
