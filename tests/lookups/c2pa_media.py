"""Media with real content credentials, made at test time: a throwaway CA signs a small JPEG with c2pa.

Nothing is downloaded and no key leaves the test process. ``tampered`` flips one byte of the image data
after signing, which c2pa reports as a data-hash mismatch (state Invalid).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache

import c2pa
import cv2
import numpy as np
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

VALID_FROM = datetime(2026, 1, 1, tzinfo=UTC)
VALID_FOR = timedelta(days=3650)
CAPTURE = "http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture"


@dataclass(frozen=True)
class SignedMedia:
    plain: bytes
    signed: bytes
    tampered: bytes
    ca_pem: str


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Icarus tests"),
        ]
    )


def _usage(*, sign: bool, ca: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=sign,
        content_commitment=False,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=ca,
        crl_sign=ca,
        encipher_only=False,
        decipher_only=False,
    )


def _chain() -> tuple[bytes, bytes, str]:
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("Icarus test CA"))
        .issuer_name(_name("Icarus test CA"))
        .public_key(ca_key.public_key())
        .serial_number(1)
        .not_valid_before(VALID_FROM)
        .not_valid_after(VALID_FROM + VALID_FOR)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(_usage(sign=False, ca=True), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(_name("Icarus test signer"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(2)
        .not_valid_before(VALID_FROM)
        .not_valid_after(VALID_FROM + VALID_FOR)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_usage(sign=True, ca=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.EMAIL_PROTECTION]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    certs = leaf.public_bytes(pem) + ca.public_bytes(pem)
    private = key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    return certs, private, ca.public_bytes(pem).decode()


@cache
def signed_media() -> SignedMedia:
    image = np.zeros((32, 48, 3), np.uint8)
    image[:, :24] = (0, 0, 255)
    encoded, jpeg = cv2.imencode(".jpg", image)
    assert encoded
    plain = jpeg.tobytes()
    certs, private, ca_pem = _chain()
    signer = c2pa.Signer.from_info(c2pa.C2paSignerInfo(c2pa.C2paSigningAlg.ES256, certs, private, None))
    manifest = {
        "claim_generator_info": [{"name": "icarus-tests", "version": "1"}],
        "title": "harbor.jpg",
        "format": "image/jpeg",
        "assertions": [
            {
                "label": "c2pa.actions",
                "data": {"actions": [{"action": "c2pa.created", "digitalSourceType": CAPTURE}]},
            }
        ],
    }
    out = io.BytesIO()
    c2pa.Builder(manifest).sign(signer, "image/jpeg", io.BytesIO(plain), out)
    signed = out.getvalue()
    tampered = bytearray(signed)
    tampered[-20] ^= 0xFF  # inside the image data, after the manifest: the hashed bytes no longer match
    return SignedMedia(plain=plain, signed=signed, tampered=bytes(tampered), ca_pem=ca_pem)
