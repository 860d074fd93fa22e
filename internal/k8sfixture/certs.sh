# certs.sh: the cluster's certificates and kubeconfigs, made with openssl at
# set-up (sourced by fixture.sh). One CA signs everything; EC P-256 keys
# (fast to make). Every file is under $DIR/pki; kubeconfigs under $DIR.

PKI="$DIR/pki"

# cert NAME CN [O] [SANS]: a key and a certificate signed by the CA; SANS
# is an openssl subjectAltName list (DNS:..,IP:..) for serving certificates.
cert() {
	local name="$1" cn="$2" o="${3:-}" sans="${4:-}" subj ext
	subj="/CN=$cn"
	[ -z "$o" ] || subj="/O=$o$subj"
	openssl ecparam -name prime256v1 -genkey -noout -out "$PKI/$name.key" 2>/dev/null
	openssl req -new -key "$PKI/$name.key" -subj "$subj" -out "$PKI/$name.csr" 2>/dev/null
	ext="$PKI/$name.ext"
	{
		echo "basicConstraints=critical,CA:FALSE"
		echo "keyUsage=critical,digitalSignature,keyEncipherment"
		if [ -n "$sans" ]; then
			echo "extendedKeyUsage=serverAuth,clientAuth"
			echo "subjectAltName=$sans"
		else
			echo "extendedKeyUsage=clientAuth"
		fi
	} >"$ext"
	openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial \
		-days 30 -sha256 -extfile "$ext" -out "$PKI/$name.crt" 2>/dev/null
	rm -f "$PKI/$name.csr" "$ext"
}

# kubeconfig FILE NAME: a kubeconfig for certificate NAME against the API server.
kubeconfig() {
	local file="$1" name="$2"
	cat >"$file" <<-EOF
		apiVersion: v1
		kind: Config
		clusters:
		- name: sweepk8s
		  cluster:
		    server: https://$(node_addr 1):6443
		    certificate-authority-data: $(base64 -w0 <"$PKI/ca.crt")
		users:
		- name: $name
		  user:
		    client-certificate-data: $(base64 -w0 <"$PKI/$name.crt")
		    client-key-data: $(base64 -w0 <"$PKI/$name.key")
		contexts:
		- name: sweepk8s
		  context: {cluster: sweepk8s, user: $name}
		current-context: sweepk8s
	EOF
}

# make_certs N: the CA, the API server's serving certificate, the clients'
# certificates and kubeconfigs, one per node for its kubelet, and the
# service account key pair.
make_certs() {
	local n="$1" i sans
	mkdir -p "$PKI"
	chmod 700 "$PKI"
	openssl ecparam -name prime256v1 -genkey -noout -out "$PKI/ca.key" 2>/dev/null
	openssl req -x509 -new -key "$PKI/ca.key" -subj "/CN=sweepk8s-ca" -days 30 -sha256 \
		-addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
		-out "$PKI/ca.crt" 2>/dev/null
	sans="DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost"
	sans+=",IP:$SERVICE_IP_API,IP:$(node_addr 1),IP:127.0.0.1"
	cert apiserver kube-apiserver "" "$sans"
	cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters
	cert admin sweep-admin system:masters
	cert controller-manager system:kube-controller-manager
	cert scheduler system:kube-scheduler
	cert kube-proxy system:kube-proxy
	for ((i = 1; i <= n; i++)); do
		cert "node$i" "system:node:$(node_name "$i")" system:nodes
		cert "node$i-serving" "$(node_name "$i")" "" "DNS:$(node_name "$i"),IP:$(node_addr "$i")"
		kubeconfig "$DIR/node$i/kubelet.kubeconfig" "node$i"
	done
	openssl ecparam -name prime256v1 -genkey -noout -out "$PKI/sa.key" 2>/dev/null
	openssl ec -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
	kubeconfig "$DIR/admin.kubeconfig" admin
	kubeconfig "$DIR/controller-manager.kubeconfig" controller-manager
	kubeconfig "$DIR/scheduler.kubeconfig" scheduler
	kubeconfig "$DIR/kube-proxy.kubeconfig" kube-proxy
	chmod 600 "$PKI"/*.key "$DIR"/*.kubeconfig "$DIR"/node*/kubelet.kubeconfig
}
