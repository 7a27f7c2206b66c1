def test_home_lists_seed_content(client, seeded):
    response = client.get("/")
    assert response.status_code == 200
    assert "Inference Optimization &amp; TensorRT" in response.text
    assert "TensorRT Note (2)" in response.text
