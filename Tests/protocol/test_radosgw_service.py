"""The session's S3 service (radosgw.py) is a real S3, with what the archive tests rely on."""
import os

import pytest
from botocore.exceptions import ClientError

BUCKET = "service-check"


def test_radosgw_stores_and_authenticates_like_s3(radosgw):
    s3 = radosgw.s3()
    s3.create_bucket(Bucket=BUCKET)
    body = os.urandom(20 << 20)
    s3.put_object(Bucket=BUCKET, Key="clips/one.mp4", Body=body, Metadata={"camera": "front"})

    head = s3.head_object(Bucket=BUCKET, Key="clips/one.mp4")
    assert head["ContentLength"] == len(body)
    assert head["Metadata"] == {"camera": "front"}
    assert s3.get_object(Bucket=BUCKET, Key="clips/one.mp4")["Body"].read() == body
    listed = s3.list_objects_v2(Bucket=BUCKET, Prefix="clips/")
    assert [(item["Key"], item["Size"]) for item in listed["Contents"]] == [("clips/one.mp4", len(body))]

    with pytest.raises(ClientError) as refused:
        radosgw.s3(secret_key="not-the-secret").list_objects_v2(Bucket=BUCKET)
    assert refused.value.response["Error"]["Code"] == "SignatureDoesNotMatch"


def test_radosgw_takes_multipart_uploads(radosgw):
    s3, bucket, key = radosgw.s3(), BUCKET + "-multipart", "big.mp4"
    s3.create_bucket(Bucket=bucket)
    parts = [os.urandom(5 << 20), os.urandom(1 << 20)]  # every part but the last is >= 5 MiB
    upload = s3.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    uploaded = [{"PartNumber": number,
                 "ETag": s3.upload_part(Bucket=bucket, Key=key, UploadId=upload, PartNumber=number,
                                        Body=part)["ETag"]}
                for number, part in enumerate(parts, 1)]
    s3.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload,
                                 MultipartUpload={"Parts": uploaded})
    assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == b"".join(parts)
